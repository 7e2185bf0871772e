/* A strict JSON reader for the fuzz targets (RFC 8259): checks that a text is exactly one JSON
 * value, and decodes string literals into code points so that a target can compare what the
 * report writer escaped with what it was given. Written for the tests, independent of the
 * writer it checks: it accepts no raw control characters, no invalid UTF-8, no lone
 * surrogates, no bad escapes, and nests at most JSON_MAX_DEPTH deep. Header-only. */
#ifndef HRACE_FUZZ_JSON_CHECK_H
#define HRACE_FUZZ_JSON_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

typedef struct json_in {
  const unsigned char *p, *end;
} json_in_t;

static void json_ws(json_in_t *in) {
  while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\n' || *in->p == '\r'))
    in->p++;
}

/* One UTF-8 sequence of the raw text at in->p into *cp; 0 if not valid UTF-8 (RFC 3629). */
static int json_utf8(json_in_t *in, uint32_t *cp) {
  const unsigned char *s = in->p;
  size_t left = (size_t)(in->end - s);
  if (s[0] < 0x80) { *cp = s[0]; in->p++; return 1; }
  size_t n;
  uint32_t c, min;
  if ((s[0] & 0xE0) == 0xC0) n = 2, c = s[0] & 0x1F, min = 0x80;
  else if ((s[0] & 0xF0) == 0xE0) n = 3, c = s[0] & 0x0F, min = 0x800;
  else if ((s[0] & 0xF8) == 0xF0) n = 4, c = s[0] & 0x07, min = 0x10000;
  else return 0;
  if (left < n) return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = c << 6 | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  in->p += n;
  return 1;
}

static int json_hex4(json_in_t *in, uint32_t *v) {
  if (in->end - in->p < 4) return 0;
  *v = 0;
  for (int i = 0; i < 4; i++) {
    unsigned char h = *in->p++;
    int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
          : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
    if (d < 0) return 0;
    *v = *v << 4 | (uint32_t)d;
  }
  return 1;
}

/* A string literal at in->p (the opening quote); its code points go to out[0..*n) when out is
 * not NULL (at most cap of them: longer strings fail). */
static int json_string(json_in_t *in, uint32_t *out, size_t cap, size_t *n) {
  size_t k = 0;
  if (in->p >= in->end || *in->p != '"') return 0;
  in->p++;
  for (;;) {
    if (in->p >= in->end) return 0;
    unsigned char c = *in->p;
    uint32_t cp;
    if (c == '"') { in->p++; break; }
    if (c < 0x20) return 0;
    if (c == '\\') {
      in->p++;
      if (in->p >= in->end) return 0;
      unsigned char e = *in->p++;
      switch (e) {
      case '"': cp = '"'; break;
      case '\\': cp = '\\'; break;
      case '/': cp = '/'; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u':
        if (!json_hex4(in, &cp)) return 0;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return 0;          /* a lone low surrogate */
        if (cp >= 0xD800 && cp <= 0xDBFF) {                  /* needs its low half */
          uint32_t lo;
          if (in->end - in->p < 2 || in->p[0] != '\\' || in->p[1] != 'u') return 0;
          in->p += 2;
          if (!json_hex4(in, &lo) || lo < 0xDC00 || lo > 0xDFFF) return 0;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        break;
      default: return 0;
      }
    } else if (!json_utf8(in, &cp)) {
      return 0;
    }
    if (out) {
      if (k == cap) return 0;
      out[k] = cp;
    }
    k++;
  }
  if (n) *n = k;
  return 1;
}

static int json_number(json_in_t *in) {
  const unsigned char *s = in->p;
  if (in->p < in->end && *in->p == '-') in->p++;
  if (in->p >= in->end) return 0;
  if (*in->p == '0') in->p++;
  else if (*in->p >= '1' && *in->p <= '9') while (in->p < in->end && *in->p >= '0' && *in->p <= '9') in->p++;
  else return 0;
  if (in->p < in->end && *in->p == '.') {
    in->p++;
    if (in->p >= in->end || *in->p < '0' || *in->p > '9') return 0;
    while (in->p < in->end && *in->p >= '0' && *in->p <= '9') in->p++;
  }
  if (in->p < in->end && (*in->p == 'e' || *in->p == 'E')) {
    in->p++;
    if (in->p < in->end && (*in->p == '+' || *in->p == '-')) in->p++;
    if (in->p >= in->end || *in->p < '0' || *in->p > '9') return 0;
    while (in->p < in->end && *in->p >= '0' && *in->p <= '9') in->p++;
  }
  return in->p > s;
}

static int json_word(json_in_t *in, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(in->end - in->p) < n || memcmp(in->p, w, n)) return 0;
  in->p += n;
  return 1;
}

static int json_value(json_in_t *in, int depth) {
  json_ws(in);
  if (in->p >= in->end || depth > JSON_MAX_DEPTH) return 0;
  switch (*in->p) {
  case '"': return json_string(in, NULL, 0, NULL);
  case 't': return json_word(in, "true");
  case 'f': return json_word(in, "false");
  case 'n': return json_word(in, "null");
  case '{': case '[': {
    unsigned char close = *in->p == '{' ? '}' : ']';
    int object = close == '}';
    in->p++;
    json_ws(in);
    if (in->p < in->end && *in->p == close) { in->p++; return 1; }
    for (;;) {
      if (object) {
        json_ws(in);
        if (!json_string(in, NULL, 0, NULL)) return 0;
        json_ws(in);
        if (in->p >= in->end || *in->p != ':') return 0;
        in->p++;
      }
      if (!json_value(in, depth + 1)) return 0;
      json_ws(in);
      if (in->p >= in->end) return 0;
      if (*in->p == close) { in->p++; return 1; }
      if (*in->p != ',') return 0;
      in->p++;
    }
  }
  default: return json_number(in);
  }
}

/* 1 if text[0..len) is exactly one JSON value (white space around it allowed). */
static int json_valid(const char *text, size_t len) {
  json_in_t in = { (const unsigned char *)text, (const unsigned char *)text + len };
  if (!json_value(&in, 0)) return 0;
  json_ws(&in);
  return in.p == in.end;
}

/* Decode the JSON string literal that is all of text[0..len) into code points. */
static int json_decode_string(const char *text, size_t len, uint32_t *out, size_t cap, size_t *n) {
  json_in_t in = { (const unsigned char *)text, (const unsigned char *)text + len };
  return json_string(&in, out, cap, n) && in.p == in.end;
}
#endif
