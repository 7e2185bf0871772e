/* libFuzzer target: the report writer's JSON (src/report/report.c). The writer's string escaper
 * and race-record builder are static, so this file includes report.c itself and calls them as
 * the writer does. The input is split at NUL bytes into the string fields of one race (op,
 * function, file, window, hint, sync, ... of both sides; a missing field is NULL).
 * Properties checked on every input:
 *  - each string field, escaped alone, is one JSON string literal that decodes to the field's
 *    own code points (a byte that is not part of valid UTF-8 stands for the code point of the
 *    same value, as the writer documents), and NULL is written as `null`;
 *  - the whole race record is exactly one valid JSON value (tests/fuzz/json_check.h). */
#include "report/report.c"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/json_check.h"

#define NFIELDS 14

static void fail(const char *what, const char *in, size_t inlen, const char *out, size_t outlen) {
  fprintf(stderr, "fuzz_report_json: %s\n  input  (%zu bytes):", what, inlen);
  for (size_t i = 0; i < inlen && i < 256; i++) fprintf(stderr, " %02x", (unsigned char)in[i]);
  fprintf(stderr, "\n  output (%zu bytes): %.*s\n", outlen, (int)(outlen < 1024 ? outlen : 1024), out);
  abort();
}

/* The code points the writer promises for s: UTF-8 decoded where valid, else byte by byte. */
static size_t expected_code_points(const char *s, uint32_t *out) {
  json_in_t in = { (const unsigned char *)s, (const unsigned char *)s + strlen(s) };
  size_t k = 0;
  while (in.p < in.end) {
    uint32_t cp;
    if (!json_utf8(&in, &cp)) cp = *in.p++;
    out[k++] = cp;
  }
  return k;
}

static void check_string(const char *s) {
  sbuf_t b = { 0 };
  sb_json_str(&b, s);
  if (!s) {
    if (b.len != 4 || strcmp(b.p, "null")) fail("NULL is not written as null", "", 0, b.p, b.len);
    free(b.p);
    return;
  }
  size_t n = strlen(s), got_n = 0;
  uint32_t *want = malloc((n + 1) * sizeof *want), *got = malloc((n + 1) * sizeof *got);
  if (!want || !got) abort();
  size_t want_n = expected_code_points(s, want);
  if (!json_decode_string(b.p, b.len, got, n + 1, &got_n))
    fail("escaped string is not one valid JSON string literal", s, n, b.p, b.len);
  if (got_n != want_n || memcmp(got, want, want_n * sizeof *want))
    fail("escaped string does not decode to the input's code points", s, n, b.p, b.len);
  if (memchr(b.p, '\n', b.len)) fail("escaped string contains a raw newline", s, n, b.p, b.len);
  free(want);
  free(got);
  free(b.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* One NUL-terminated copy, cut into fields at the NULs. */
  char *copy = malloc(size + 1);
  if (!copy) return 0;
  memcpy(copy, data, size);
  copy[size] = '\0';
  const char *f[NFIELDS] = { 0 };
  size_t nf = 0;
  for (char *p = copy; nf < NFIELDS && p <= copy + size; p += strlen(p) + 1) f[nf++] = p;

  for (size_t i = 0; i < NFIELDS; i++) check_string(f[i]);

  hrace_report_t r = {
    .kind = f[0], .window = f[1], .hint = f[2], .allocation = f[3], .owner = 1,
    .base = 0x7f0000001000, .addr = size, .variable = { .name = f[4], .offset = 2, .size = 8 },
    .a = { .op = f[5], .rank = 1, .loc = { .func = f[6], .file = f[7], .line = 3 }, .sync = f[8],
           .size = 4 },
    .b = { .op = f[9], .rank = 0, .thread = 2, .loc = { .func = f[10], .file = f[11], .line = 7 },
           .size = 8 },
  };
  /* A short stack on side b: two frames of fuzzed names. */
  r.b.frames[0] = (hrace_frame_t){ .loc = r.b.loc };
  r.b.frames[1] = (hrace_frame_t){ .loc = { .func = f[12], .file = f[13], .line = 9 }, .inlined = true };
  r.b.nframes = 2;
  sbuf_t b = { 0 };
  /* The allocation and window call sites (fuzzed names, columns included). */
  const hrace_srcloc_t alloc = { .func = f[12], .file = f[7], .line = 11, .column = 5 };
  const hrace_srcloc_t win = { .func = f[6], .file = f[13], .line = 12, .column = 7 };
  json_race(&b, 1, &r, &alloc, &win);
  if (!json_valid(b.p, b.len)) fail("race record is not one valid JSON value", copy, size, b.p, b.len);
  free(b.p);
  free(copy);
  return 0;
}
