/* Vector clock operations (see vc.h for the clock convention). */
#include "clocks/vc.h"

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
