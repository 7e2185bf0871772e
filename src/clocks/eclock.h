/* Epoch clocks: vector clocks that stay small when the processes synchronise all together now
 * and then (docs/design.md, "Clocks at scale"). Knows nothing of MPI: an entry is an exporter
 * (a rank, as in vc.h), a "world collective" is any synchronisation every exporter of class
 * HRACE_EC_WORLD takes part in (MPI_Barrier, MPI_Allreduce, ..., a fence on a window of the
 * whole world), numbered 1, 2, ... in the order all of them start it.
 *
 * Event stamps. An exporter's events are stamped (x, g, n): g is the number of world
 * collectives x has *started* before the event, n the number of its signals since it started
 * the g-th (its own scalar clock restarted at each world collective). (g, n) compared
 * lexicographically is x's program order. An exporter that does not take part in every world
 * collective (a second MPI-calling thread of a rank, say) is of class HRACE_EC_NEVER: its g
 * is HRACE_EC_G_NEVER for ever, so no world collective covers its events and they travel as
 * sparse entries. The class is fixed at the exporter's start: an exporter that misses a world
 * collective after stamping events with a finite g would have them covered wrongly
 * (docs/design.md, "Clocks at scale", on slot 0).
 *
 * A clock (k, S) stands for the full vector clock V with
 *     V[x] = max( x's last event with g < k ,  S[x] )
 * that is: k says "every event with g < k of every exporter is known" (everything any process
 * did before it started the k-th world collective is ordered before everything any process does
 * after it finished it, and k passes on by messages like any knowledge), and S lists, sorted
 * by x, only the entries that know more than that (g >= k). Hence
 *     (x, g, n) happened before (k, S)  iff  g < k  or  (g, n) <= S[x].
 * The proof that this answers exactly like V is in docs/design.md; tests/unit/test_clock_equiv.c
 * checks it on random traces against vc.h.
 *
 * On the wire (hrace__ec_encode) a clock is the shortest of three forms: sparse (k, the
 * entries of S with x as gaps and (g - k, n) as small varints), dense varints, and dense 32-bit
 * words; the last is never longer than the full vector's 4 x nexp bytes by more than 5 bytes
 * while every n < 2^30. */
#ifndef HRACE_CLOCKS_ECLOCK_H
#define HRACE_CLOCKS_ECLOCK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HRACE_EC_G_NEVER UINT32_MAX

typedef struct hrace_ec_ent {
  uint32_t x;               /* exporter */
  uint32_t g, n;            /* the latest event of x this clock knows beyond its k */
} hrace_ec_ent_t;

typedef struct hrace_ec {
  uint32_t k;               /* every event with g < k is known */
  uint32_t len, cap;
  hrace_ec_ent_t *e;        /* len entries, sorted by x, each with g >= k */
} hrace_ec_t;

/* (g, n) as one number whose order is the lexicographic one. */
static inline uint64_t hrace__ec_val(uint32_t g, uint32_t n) { return (uint64_t)g << 32 | n; }

void hrace__ec_init(hrace_ec_t *c);                         /* k = 0, no entries */
void hrace__ec_free(hrace_ec_t *c);
void hrace__ec_copy(hrace_ec_t *dst, const hrace_ec_t *src);
/* dst = dst join src (pointwise max of the full vectors both stand for). */
void hrace__ec_join(hrace_ec_t *dst, const hrace_ec_t *src);
/* dst learns that world collective k finished: k = max(k, kk), entries with g < k dropped. */
void hrace__ec_know(hrace_ec_t *c, uint32_t kk);
/* Raise entry x to (g, n) if that is later than what the clock knows of x (an exporter's own
 * entry after it ticked). Entries with g < k are implied already and not stored. */
void hrace__ec_set(hrace_ec_t *c, uint32_t x, uint32_t g, uint32_t n);
/* Entry x of S, or NULL when the clock knows nothing of x beyond k. */
const hrace_ec_ent_t *hrace__ec_find(const hrace_ec_t *c, uint32_t x);
/* Did the event stamped (x, g, n) happen before the event whose clock is c? */
static inline bool hrace__ec_hb(uint32_t x, uint32_t g, uint32_t n, const hrace_ec_t *c) {
  if (g < c->k) return true;
  const hrace_ec_ent_t *e = hrace__ec_find(c, x);
  return e && hrace__ec_val(g, n) <= hrace__ec_val(e->g, e->n);
}
/* Bytes the clock occupies in memory (struct and entry array). */
size_t hrace__ec_mem(const hrace_ec_t *c);

/* ---- one exporter's own state: its clock and its current epoch ----
 * The convention of vc.h: at a signal the exporter sends its clock, then ticks; at a wait it
 * joins what it received. */
typedef struct hrace_ec_proc {
  uint32_t x;               /* own exporter */
  uint32_t g, n;            /* own current epoch: accesses now are stamped (x, g, n) */
  bool never;               /* class HRACE_EC_NEVER: takes part in no world collective */
  hrace_ec_t clk;           /* what it knows, own entry (x, g, n) included */
} hrace_ec_proc_t;

void hrace__ec_proc_init(hrace_ec_proc_t *p, uint32_t x, bool never);
void hrace__ec_proc_free(hrace_ec_proc_t *p);
/* After a signal: n + 1. */
void hrace__ec_tick(hrace_ec_proc_t *p);
/* Start world collective m (m = this exporter's count of started world collectives + 1): *out
 * (if not NULL) receives the clock to contribute, then the epoch becomes (m, 0). */
void hrace__ec_world_start(hrace_ec_proc_t *p, uint32_t m, hrace_ec_t *out);
/* Finish world collective m: join every member's contribution (the caller does that with
 * hrace__ec_join, for contributions that carry entries beyond m), then this. */
void hrace__ec_world_end(hrace_ec_proc_t *p, uint32_t m);

/* ---- the wire ----
 * Encode c for a receiver that assumes at least kmin (a world collective's members encode their
 * contribution to collective m with kmin = m: only entries beyond it travel). `base` is an
 * exporter the receiver knows (the sender's: the first entry is a gap from it), `nexp` the
 * number of exporters (dense forms). Returns the byte count; buf may be NULL to measure only.
 * The longest output is hrace__ec_encode_max(nexp, len). */
size_t hrace__ec_encode(const hrace_ec_t *c, uint32_t kmin, uint32_t base, uint32_t nexp,
                        uint8_t *buf);
size_t hrace__ec_encode_max(uint32_t nexp, uint32_t len);
/* Decode into out (replacing it). Returns false, leaving out empty, when buf is not a clock of
 * at most nexp exporters encoded by hrace__ec_encode. */
bool hrace__ec_decode(hrace_ec_t *out, const uint8_t *buf, size_t n, uint32_t base,
                      uint32_t nexp);
#endif
