/* Vector clock operations (see vc.h for the clock convention). */
#include "clocks/vc.h"
#include "base/compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hrace__vc_init(hrace_vc_t *v, uint32_t n) {
  v->n = n;
  v->local = NULL;
  v->c = n ? calloc(n, sizeof *v->c) : NULL;
  if (n && !v->c) abort();
}

void hrace__vc_free(hrace_vc_t *v) {
  free(v->c);
  v->c = NULL;
  v->n = 0;
  v->local = NULL;
}

void hrace__vc_grow(hrace_vc_t *v, uint32_t n) {
  if (n <= v->n) return;
  hrace_clk_t *c = realloc(v->c, n * sizeof *c);
  if (!c) abort();
  memset(c + v->n, 0, (n - v->n) * sizeof *c);
  v->c = c;
  v->n = n;
}

void hrace__vc_copy(hrace_vc_t *dst, const hrace_vc_t *src) {
  if (dst->n != src->n) {
    const hrace_vc_t *local = dst->local;
    hrace__vc_free(dst);
    hrace__vc_init(dst, src->n);
    dst->local = local;
  }
  if (src->n) memcpy(dst->c, src->c, src->n * sizeof *src->c);
}

void hrace__vc_join_raw(hrace_vc_t *dst, const hrace_clk_t *src, uint32_t n) {
  while (n && !src[n - 1]) n--;          /* trailing zeros add nothing */
  hrace__vc_grow(dst, n);
  for (uint32_t i = 0; i < n; i++)
    if (src[i] > dst->c[i]) dst->c[i] = src[i];
}

void hrace__vc_join(hrace_vc_t *dst, const hrace_vc_t *src) {
  hrace__vc_join_raw(dst, src->c, src->n);
}

bool hrace__vc_leq(const hrace_vc_t *a, const hrace_vc_t *b) {
  for (uint32_t i = 0; i < a->n; i++) {
    hrace_clk_t bi = i < b->n ? b->c[i] : 0;
    if (a->c[i] > bi) return false;
  }
  return true;
}

bool hrace__vc_concurrent(const hrace_vc_t *a, const hrace_vc_t *b) {
  return !hrace__vc_leq(a, b) && !hrace__vc_leq(b, a);
}

char *hrace__vc_format(const hrace_vc_t *v, char *buf, unsigned len) {
  unsigned o = 0;
  if (!len) return buf;
  buf[0] = 0;
  o += snprintf(buf + o, len - o, "[");
  for (uint32_t i = 0; i < v->n && o < len; i++)
    o += snprintf(buf + o, len - o, i ? " %u" : "%u", v->c[i]);
  if (o < len) snprintf(buf + o, len - o, "]");
  return buf;
}

/* ---- relative encoding (vc.h) ------------------------------------------------------------ */
static inline size_t put_varint(uint8_t *b, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) b[n++] = (uint8_t)(v | 0x80), v >>= 7;
  b[n++] = (uint8_t)v;
  return n;
}

static inline bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (unsigned s = 0; s < 64; s += 7) {
    if (*p >= end) return false;
    uint8_t b = *(*p)++;
    x |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

HRACE_COLD size_t hrace__vc_encode(uint8_t *out, uint32_t num, const hrace_clk_t *v, uint32_t n,
                        const hrace_clk_t *base, uint32_t len, uint32_t keep) {
  uint32_t m = n > len ? n : len, count = 0;
  for (uint32_t x = 0; x < m; x++)   /* the count first: two passes over a clock are cheaper than moving the entries */
    count += (x < n ? v[x] : 0) != (base && x < len ? base[x] : 0) || x == keep;
  size_t o = put_varint(out, num);
  o += put_varint(out + o, count);
  for (uint32_t x = 0, next = 0; x < m; x++) {
    hrace_clk_t a = x < n ? v[x] : 0, b = base && x < len ? base[x] : 0;
    if (a == b && x != keep) continue;
    int64_t d = (int64_t)a - (x == keep ? 0 : (int64_t)b);   /* keep: its value itself */
    o += put_varint(out + o, x - next);
    o += put_varint(out + o, (uint64_t)(d * 2) ^ (uint64_t)(d >> 63));
    next = x + 1;
  }
  return o;
}

HRACE_COLD int64_t hrace__vc_encoded_base(const uint8_t *in, size_t len) {
  const uint8_t *p = in;
  uint64_t num;
  if (!get_varint(&p, in + len, &num) || num > UINT32_MAX) return -1;
  return (int64_t)num;
}

HRACE_COLD long hrace__vc_decode(const uint8_t *in, size_t len, hrace_clk_t *out, uint32_t n, uint32_t keep,
                      bool only_keep) {
  const uint8_t *p = in, *end = in + len;
  uint64_t num, count, gap, z;
  if (!get_varint(&p, end, &num) || !get_varint(&p, end, &count) || count > n) return -1;
  uint64_t x = 0;
  for (uint64_t i = 0; i < count; i++) {
    if (!get_varint(&p, end, &gap) || !get_varint(&p, end, &z)) return -1;
    x += gap;
    if (x >= n) return -1;
    int64_t d = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    if (only_keep && x != keep) {   /* coded against a base the caller lacks */
      x++;
      continue;
    }
    int64_t val = (x == keep ? 0 : (int64_t)out[x]) + d;
    if (val < 0 || val > UINT32_MAX) return -1;
    out[x++] = (hrace_clk_t)val;
  }
  return (long)(p - in);
}
