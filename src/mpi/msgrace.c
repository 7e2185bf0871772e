/* Message races (see msgrace.h). For each communicator with wildcard receives: a ring of the
 * last completed wildcard receives; pending ones live in the posted list (posted.h) with the
 * late messages seen while they were pending (their own source is not known yet).
 *
 *   event (receive r2 gets message m from s)   check
 *   r completed wildcard, posted before r2     s != r.src, tag fits r, m late for r -> race
 *   r pending wildcard, posted before r2       r matched already (non-overtaking): fix its
 *                                              epoch now if unset; m late -> remember (s, site)
 *   r2 itself a wildcard                       fix epoch; each remembered (s', site') with
 *                                              s' != s -> race; enter the ring */
#include "mpi/msgrace.h"

#include <stdlib.h>
#include <string.h>
#include "core/mpicode.h"
#include "core/race.h"
#include "core/thread.h"
#include "mpi/posted.h"
#include "report/compose.h"
#include "report/report.h"

#define RING 32

typedef struct wdone {
  uint64_t seq;
  int tag, src;              /* tag as posted (may be ANY), matched sender's world rank */
  uint64_t site;             /* the matched send's site */
  uint32_t ex;
  hrace_clk_t ec;
} wdone_t;

typedef struct hrace_mrace { wdone_t ring[RING]; unsigned n, next; } hrace_mrace_t;

hrace_post_t *hrace__post_next(const hrace_post_t *p);

static int tag_fits(int spec, int tag) { return spec == MPI_ANY_TAG || spec == tag; }

/* Was the epoch (ex, ec) covered by the clock in h? (then m was sent after r matched) */
static int covered(const hrace_hdr_t *h, uint32_t ex, hrace_clk_t ec) {
  hrace_vc_t v = { .n = hrace__hdr_clock_n(h), .c = (hrace_clk_t *)h->clk };
  return hrace__epoch_hb(ex, ec, &v);
}

/* Both sides are sends made elsewhere: the frame header has room for their code addresses only
 * (12 bytes, frame.h), which name the same code here (same executable at every rank). Each
 * side is that address's frames, inlined ones included, up to stack_depth; the senders'
 * callers do not travel. */
static void report(int src_a, uint64_t site_a, int src_b, uint64_t site_b) {
  if (src_b < src_a) {   /* the lower rank first: the same race reads the same in every run */
    int s = src_a;
    uint64_t t = site_a;
    src_a = src_b, site_a = site_b, src_b = s, site_b = t;
  }
  hrace_report_t r = { .kind = "message", .window = NULL, .owner = hrace__proc.rank };
  uintptr_t pa = hrace__site_decode(site_a), pb = hrace__site_decode(site_b);
  hrace__report_side(&r.a, "MPI_Send", src_a, 0, 0, 0, NULL, pa);
  hrace__report_side(&r.b, "MPI_Send", src_b, 0, 0, 0, NULL, pb);
  if (hrace__report_seen(&r)) return;
  hrace__race_side_frames(&r.a, 0, pa);
  hrace__race_side_frames(&r.b, 0, pb);
  hrace__report_race(&r);
}

void hrace__mrace_received(hrace_post_t *p, const hrace_hdr_t *h, int src, int tag) {
  hrace_comm_t *rec = p->rec;
  if (src < 0) return;
  if (!rec->mr && !(rec->mr = calloc(1, sizeof *rec->mr))) return;
  hrace_mrace_t *mr = rec->mr;
  uint32_t ex = hrace__thread_exporter();
  hrace_clk_t now = hrace__thread_epoch();
  for (unsigned i = 0; i < mr->n; i++) {
    const wdone_t *r = &mr->ring[i];
    if (r->seq < p->seq && r->src != src && tag_fits(r->tag, tag) && !covered(h, r->ex, r->ec))
      report(src, h->site, r->src, r->site);
  }
  for (hrace_post_t *r = hrace__post_next(NULL); r && r->seq < p->seq; r = hrace__post_next(r)) {
    if (r->rec != rec || r->src != MPI_ANY_SOURCE || !tag_fits(r->tag, tag)) continue;
    if (!r->epoch_set) r->epoch_set = 1, r->ex = ex, r->ec = now;
    if (covered(h, r->ex, r->ec)) continue;
    hrace_cand_t *c = malloc(sizeof *c);
    if (!c) continue;
    *c = (hrace_cand_t){ src, h->site, r->cands };
    r->cands = c;
  }
  if (p->src != MPI_ANY_SOURCE) return;
  if (!p->epoch_set) p->epoch_set = 1, p->ex = ex, p->ec = now;
  for (hrace_cand_t *c = p->cands; c; c = c->next)
    if (c->src != src) report(c->src, c->site, src, h->site);
  mr->ring[mr->next] = (wdone_t){ p->seq, p->tag, src, h->site, p->ex, p->ec };
  mr->next = (mr->next + 1) % RING;
  if (mr->n < RING) mr->n++;
}

void hrace__mrace_free(hrace_comm_t *rec) {
  free(rec->mr);
  rec->mr = NULL;
}

/* ---- sites --------------------------------------------------------------------------------- */
/* The main executable's range and load bias: core/mpicode.h. */
uint32_t hrace__site_encode(uintptr_t pc) {
  if (pc < hrace__exe_lo || pc >= hrace__exe_hi || pc - hrace__exe_bias >= (1u << 31)) return 0;
  return (uint32_t)(pc - hrace__exe_bias) | (1u << 31);
}

uintptr_t hrace__site_decode(uint64_t site) {
  return site ? hrace__exe_bias + (uintptr_t)(site & ~(uint64_t)(1u << 31)) : 0;
}
