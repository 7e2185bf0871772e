/* Epoch clocks (see eclock.h; the argument that they answer like full vectors is in
 * docs/design.md, "Clocks at scale"). */
#include "clocks/eclock.h"

#include <stdlib.h>
#include <string.h>

void hrace__ec_init(hrace_ec_t *c) { memset(c, 0, sizeof *c); }

void hrace__ec_free(hrace_ec_t *c) {
  free(c->e);
  memset(c, 0, sizeof *c);
}

static void reserve(hrace_ec_t *c, uint32_t n) {
  if (n <= c->cap) return;
  uint32_t cap = c->cap ? c->cap : 4;
  while (cap < n) cap *= 2;
  hrace_ec_ent_t *e = realloc(c->e, (size_t)cap * sizeof *e);
  if (!e) abort();
  c->e = e;
  c->cap = cap;
}

void hrace__ec_copy(hrace_ec_t *dst, const hrace_ec_t *src) {
  if (dst == src) return;
  reserve(dst, src->len);
  if (src->len) memcpy(dst->e, src->e, (size_t)src->len * sizeof *src->e);
  dst->len = src->len;
  dst->k = src->k;
}

void hrace__ec_know(hrace_ec_t *c, uint32_t kk) {
  if (kk <= c->k) return;
  c->k = kk;
  uint32_t j = 0;
  for (uint32_t i = 0; i < c->len; i++)
    if (c->e[i].g >= kk) c->e[j++] = c->e[i];
  c->len = j;
}

/* First index whose x is >= x. */
static uint32_t lower(const hrace_ec_t *c, uint32_t x) {
  uint32_t lo = 0, hi = c->len;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (c->e[mid].x < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const hrace_ec_ent_t *hrace__ec_find(const hrace_ec_t *c, uint32_t x) {
  uint32_t i = lower(c, x);
  return i < c->len && c->e[i].x == x ? &c->e[i] : NULL;
}

void hrace__ec_set(hrace_ec_t *c, uint32_t x, uint32_t g, uint32_t n) {
  if (g < c->k) return;
  uint32_t i = lower(c, x);
  if (i < c->len && c->e[i].x == x) {
    if (hrace__ec_val(g, n) > hrace__ec_val(c->e[i].g, c->e[i].n)) c->e[i].g = g, c->e[i].n = n;
    return;
  }
  reserve(c, c->len + 1);
  memmove(&c->e[i + 1], &c->e[i], (size_t)(c->len - i) * sizeof *c->e);
  c->e[i] = (hrace_ec_ent_t){ x, g, n };
  c->len++;
}

void hrace__ec_join(hrace_ec_t *dst, const hrace_ec_t *src) {
  if (dst == src) return;
  hrace__ec_know(dst, src->k);
  uint32_t k = dst->k;
  /* Size of the union (src entries at or beyond k only), then merge from the back in place. */
  uint32_t i = 0, j = 0, u = 0;
  while (j < src->len) {
    if (src->e[j].g < k) { j++; continue; }
    if (i < dst->len && dst->e[i].x < src->e[j].x) { i++, u++; continue; }
    if (i < dst->len && dst->e[i].x == src->e[j].x) i++;
    j++, u++;
  }
  u += dst->len - i;
  if (u == dst->len) {            /* nothing new: raise the common entries in place */
    i = 0;
    for (j = 0; j < src->len; j++) {
      const hrace_ec_ent_t *s = &src->e[j];
      if (s->g < k) continue;
      while (dst->e[i].x < s->x) i++;
      hrace_ec_ent_t *d = &dst->e[i];
      if (hrace__ec_val(s->g, s->n) > hrace__ec_val(d->g, d->n)) d->g = s->g, d->n = s->n;
    }
    return;
  }
  reserve(dst, u);
  int64_t a = (int64_t)dst->len - 1, b = (int64_t)src->len - 1, o = (int64_t)u - 1;
  while (b >= 0) {
    const hrace_ec_ent_t *s = &src->e[b];
    if (s->g < k) { b--; continue; }
    if (a >= 0 && dst->e[a].x > s->x) { dst->e[o--] = dst->e[a--]; continue; }
    hrace_ec_ent_t m = *s;
    if (a >= 0 && dst->e[a].x == s->x) {
      if (hrace__ec_val(dst->e[a].g, dst->e[a].n) > hrace__ec_val(s->g, s->n)) m = dst->e[a];
      a--;
    }
    dst->e[o--] = m;
    b--;
  }
  /* the remaining dst entries are already in place (o == a) */
  dst->len = u;
}

size_t hrace__ec_mem(const hrace_ec_t *c) { return sizeof *c + (size_t)c->cap * sizeof *c->e; }

/* ---- an exporter's own state ---- */

void hrace__ec_proc_init(hrace_ec_proc_t *p, uint32_t x, bool never) {
  p->x = x;
  p->g = never ? HRACE_EC_G_NEVER : 0;
  p->n = 0;
  p->never = never;
  hrace__ec_init(&p->clk);
  hrace__ec_set(&p->clk, x, p->g, 0);
}

void hrace__ec_proc_free(hrace_ec_proc_t *p) { hrace__ec_free(&p->clk); }

void hrace__ec_tick(hrace_ec_proc_t *p) {
  p->n++;
  hrace__ec_set(&p->clk, p->x, p->g, p->n);
}

void hrace__ec_world_start(hrace_ec_proc_t *p, uint32_t m, hrace_ec_t *out) {
  if (out) hrace__ec_copy(out, &p->clk);
  if (p->never) {                 /* its events stay uncovered: an ordinary signal */
    hrace__ec_tick(p);
    return;
  }
  p->g = m, p->n = 0;
  hrace__ec_set(&p->clk, p->x, m, 0);
}

void hrace__ec_world_end(hrace_ec_proc_t *p, uint32_t m) { hrace__ec_know(&p->clk, m); }

/* ---- the wire ----
 * header   varint(k << 2 | form)             form 0 sparse, 1 dense varints, 2 dense words
 * sparse   varint(count), per entry: gap, value
 *            gap: the first entry zigzag(x - base), the next ones x - previous x - 1
 * value    varint(n << 2 | t): t 0: g = k, 1: g = k + 1, 2: g = NEVER, 3: varint(g - k - 2)
 *          follows
 * dense 1  per exporter varint(0) if absent, else the value with its first varint plus one
 * dense 2  per exporter a little-endian 32-bit word: 0 if absent, else (n << 2 | t) + 1; only
 *          when every such word fits and no t is 3 */

static inline size_t put_varint(uint8_t *buf, uint64_t v) {
  size_t n = 0;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    if (buf) buf[n] = b;
    n++;
  } while (v);
  return n;
}

static inline size_t varint_len(uint64_t v) {
  return (size_t)(64 - __builtin_clzll(v | 1) + 6) / 7;
}

static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned s = 0; s < 64; s += 7) {
    if (*p == end) return false;
    uint8_t b = *(*p)++;
    r |= (uint64_t)(b & 0x7f) << s;
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

/* The value's first varint and, for t == 3, the second. */
static inline uint64_t code_of(const hrace_ec_ent_t *e, uint32_t k, uint64_t *extra) {
  uint32_t t;
  if (e->g == k) t = 0;
  else if (e->g == k + 1 && e->g != HRACE_EC_G_NEVER) t = 1;
  else if (e->g == HRACE_EC_G_NEVER) t = 2;
  else t = 3, *extra = (uint64_t)(e->g - k - 2);
  return (uint64_t)e->n << 2 | t;
}

static inline size_t put_value(uint8_t *buf, const hrace_ec_ent_t *e, uint32_t k, uint64_t plus) {
  uint64_t extra = 0, c = code_of(e, k, &extra);
  size_t n = put_varint(buf, c + plus);
  if ((c & 3) == 3) n += put_varint(buf ? buf + n : NULL, extra);
  return n;
}

static uint64_t zigzag(int64_t v) { return (uint64_t)v << 1 ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

size_t hrace__ec_encode_max(uint32_t nexp, uint32_t len) {
  (void)nexp;
  return 20 + (size_t)len * 25;   /* the sparse form bounds the shortest */
}

size_t hrace__ec_encode(const hrace_ec_t *c, uint32_t kmin, uint32_t base, uint32_t nexp,
                        uint8_t *buf) {
  uint32_t k = c->k > kmin ? c->k : kmin;
  /* Sizes of the three forms. */
  uint32_t cnt = 0;
  size_t sparse = 0, dvar = 0;
  bool fixed_ok = true;
  uint32_t prev = 0;
  for (uint32_t i = 0; i < c->len; i++) {
    const hrace_ec_ent_t *e = &c->e[i];
    if (e->g < k) continue;
    uint64_t extra = 0, code = code_of(e, k, &extra);
    size_t lx = (code & 3) == 3 ? varint_len(extra) : 0;
    sparse += (cnt ? varint_len(e->x - prev - 1) : varint_len(zigzag((int64_t)e->x - base))) +
              varint_len(code) + lx;
    dvar += varint_len(code + 1) + lx;
    if ((code & 3) == 3 || code + 1 > UINT32_MAX) fixed_ok = false;
    prev = e->x;
    cnt++;
  }
  sparse += varint_len(cnt);
  dvar += nexp - cnt;
  size_t fixed = fixed_ok ? (size_t)nexp * 4 : SIZE_MAX;
  unsigned form = sparse <= dvar && sparse <= fixed ? 0 : dvar <= fixed ? 1 : 2;
  size_t hdr = varint_len((uint64_t)k << 2 | form);
  size_t total = hdr + (form == 0 ? sparse : form == 1 ? dvar : fixed);
  if (!buf) return total;

  uint8_t *o = buf + put_varint(buf, (uint64_t)k << 2 | form);
  if (form == 0) {
    o += put_varint(o, cnt);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < c->len; i++) {
      const hrace_ec_ent_t *e = &c->e[i];
      if (e->g < k) continue;
      o += put_varint(o, seen ? e->x - prev - 1 : zigzag((int64_t)e->x - base));
      o += put_value(o, e, k, 0);
      prev = e->x;
      seen++;
    }
  } else {
    uint32_t i = 0;
    for (uint32_t x = 0; x < nexp; x++) {
      while (i < c->len && (c->e[i].x < x || c->e[i].g < k)) i++;
      const hrace_ec_ent_t *e = i < c->len && c->e[i].x == x ? &c->e[i] : NULL;
      if (form == 1) {
        o += e ? put_value(o, e, k, 1) : put_varint(o, 0);
      } else {
        uint64_t extra = 0;
        uint32_t w = e ? (uint32_t)(code_of(e, k, &extra) + 1) : 0;
        o[0] = w & 0xff, o[1] = w >> 8 & 0xff, o[2] = w >> 16 & 0xff, o[3] = w >> 24;
        o += 4;
      }
    }
  }
  return (size_t)(o - buf);
}

/* Value from its first varint c (t in the low bits) and, for t == 3, the next one. */
static bool get_value(const uint8_t **p, const uint8_t *end, uint64_t c, uint32_t k,
                      hrace_ec_ent_t *e) {
  uint64_t n = c >> 2;
  if (n > UINT32_MAX) return false;
  e->n = (uint32_t)n;
  switch (c & 3) {
  case 0: e->g = k; break;
  case 1:
    if (k + 1ull >= HRACE_EC_G_NEVER) return false;
    e->g = k + 1;
    break;
  case 2: e->g = HRACE_EC_G_NEVER; break;
  default: {
    uint64_t d;
    if (!get_varint(p, end, &d) || k + 2ull + d >= HRACE_EC_G_NEVER) return false;
    e->g = (uint32_t)(k + 2 + d);
  }
  }
  return true;
}

bool hrace__ec_decode(hrace_ec_t *out, const uint8_t *buf, size_t len, uint32_t base,
                      uint32_t nexp) {
  const uint8_t *p = buf, *end = buf + len;
  uint64_t h;
  out->len = 0, out->k = 0;
  if (!get_varint(&p, end, &h) || (h >> 2) > UINT32_MAX - 1u || (h & 3) == 3) return false;
  uint32_t k = (uint32_t)(h >> 2);
  unsigned form = h & 3;
  if (form == 0) {
    uint64_t cnt;
    if (!get_varint(&p, end, &cnt) || cnt > nexp) return false;
    reserve(out, (uint32_t)cnt);
    int64_t x = -1;
    for (uint64_t i = 0; i < cnt; i++) {
      uint64_t gap, c;
      if (!get_varint(&p, end, &gap) || gap >> 34) goto bad;   /* no exporter is that far */
      x = i ? x + 1 + (int64_t)gap : (int64_t)base + unzigzag(gap);
      if (x < 0 || x >= nexp) goto bad;
      hrace_ec_ent_t *e = &out->e[out->len];
      e->x = (uint32_t)x;
      if (!get_varint(&p, end, &c) || !get_value(&p, end, c, k, e)) goto bad;
      out->len++;
    }
  } else {
    reserve(out, nexp);
    for (uint32_t x = 0; x < nexp; x++) {
      uint64_t c;
      if (form == 1) {
        if (!get_varint(&p, end, &c)) goto bad;
      } else {
        if (end - p < 4) goto bad;
        c = p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
        p += 4;
        if (c && ((c - 1) & 3) == 3) goto bad;
      }
      if (!c) continue;
      hrace_ec_ent_t e = { .x = x };
      if (!get_value(&p, end, c - 1, k, &e)) goto bad;
      out->e[out->len++] = e;
    }
  }
  if (p != end) goto bad;
  out->k = k;
  return true;
bad:
  out->len = 0;
  return false;
}
