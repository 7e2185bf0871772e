/* Vector clocks and the happens-before test. Knows nothing of MPI or OpenMP: an entry is an
 * "exporter" (for now: one per MPI process, indexed by world rank), a clock value counts that
 * exporter's synchronisation events (signals).
 *
 * Convention (docs/design.md, "Happens-before: the clock model"): at a signal, an exporter sends
 * its clock and then ticks its own entry; at a wait, the waiter joins the received clock into its
 * own. An access made while exporter x's entry reads c is stamped with the epoch (x, c); it
 * happened before an event whose clock is V iff c <= V[x]. A remote operation still in flight has
 * epoch (x, INF): it is ordered before nothing until its completion fixes the epoch. */
#ifndef HRACE_CLOCKS_VC_H
#define HRACE_CLOCKS_VC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t hrace_clk_t;
#define HRACE_CLK_INF UINT32_MAX

typedef struct hrace_vc {
  uint32_t n;        /* number of entries */
  hrace_clk_t *c;    /* n entries, owned */
  /* A thread's own clock has two parts (docs/design.md, "Happens-before: the clock model"): this
   * one, over exporters, which travels between processes, and a local part over the threads of its
   * process, which never leaves it. A view used for checks points at its local part here; a clock
   * that came in a message has none (NULL), and local accesses are then judged through the
   * exporters' snapshots (exporter.h). */
  const struct hrace_vc *local;
} hrace_vc_t;

void hrace__vc_init(hrace_vc_t *v, uint32_t n);           /* all zero */
void hrace__vc_free(hrace_vc_t *v);
void hrace__vc_copy(hrace_vc_t *dst, const hrace_vc_t *src); /* resizes dst */
void hrace__vc_join(hrace_vc_t *dst, const hrace_vc_t *src); /* dst = max(dst, src) */
void hrace__vc_join_raw(hrace_vc_t *dst, const hrace_clk_t *src, uint32_t n); /* grows dst */
void hrace__vc_grow(hrace_vc_t *v, uint32_t n);             /* at least n entries, new ones 0 */
bool hrace__vc_leq(const hrace_vc_t *a, const hrace_vc_t *b); /* a <= b pointwise */
/* a || b: neither a <= b nor b <= a */
bool hrace__vc_concurrent(const hrace_vc_t *a, const hrace_vc_t *b);
/* A clock on the wire relative to a base both sides hold (docs/mpi.md, "Clocks relative to a
 * base"): the entries where v differs from base, plus entry `keep` whatever its value.
 *   varint(num)  varint(count)  count x [ varint(gap)  varint(zigzag(v[x] - base[x])) ]
 * num names the base (0: the zero vector); gap is x minus the previous entry's x plus one
 * (the first: x); entry keep carries zigzag(v[keep]) itself, so that a receiver that lacks the
 * base still reads it. v has n entries and base len (missing entries are 0; base may be NULL
 * for the zero vector; keep UINT32_MAX for none). Returns the bytes written to out, which must
 * have room for HRACE_VC_ENC_MAX(max(n, len)) bytes. */
#define HRACE_VC_ENC_MAX(n) (10 + (size_t)(n) * 10)
size_t hrace__vc_encode(uint8_t *out, uint32_t num, const hrace_clk_t *v, uint32_t n,
                        const hrace_clk_t *base, uint32_t len, uint32_t keep);
/* The base number of an encoded clock (-1 if in[0, len) does not hold one). */
int64_t hrace__vc_encoded_base(const uint8_t *in, size_t len);
/* Decode into out (n entries), which the caller filled with the base (or the zero vector), with
 * the encoder's keep: entries beyond n or a malformed or truncated stream give -1, else the
 * bytes read. only_keep: set entry keep alone (the caller lacks the base). */
long hrace__vc_decode(const uint8_t *in, size_t len, hrace_clk_t *out, uint32_t n, uint32_t keep,
                      bool only_keep);
/* Format as "[3 0 7]" into buf (for debug dumps); returns buf. */
char *hrace__vc_format(const hrace_vc_t *v, char *buf, unsigned len);

static inline void hrace__vc_tick(hrace_vc_t *v, uint32_t x) { v->c[x]++; }

/* Did the event stamped (x, c) happen before the event whose clock is v? */
static inline bool hrace__epoch_hb(uint32_t x, hrace_clk_t c, const hrace_vc_t *v) {
  return x < v->n && c <= v->c[x];
}
#endif
