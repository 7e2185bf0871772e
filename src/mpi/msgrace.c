/* Message races (see msgrace.h). For each communicator with wildcard receives: a ring of the
 * last completed wildcard receives; pending ones live in the posted list (posted.h) with the
 * late messages seen while they were pending (their own source is not known yet).
 *
 *   event (receive r2 gets message m from s)   check
 *   r completed wildcard, posted before r2     s != r.src, tag fits r, m late for r -> race
 *   r pending wildcard, posted before r2       r matched already (non-overtaking): fix its
 *                                              epoch now if unset; m late -> remember (s, site)
 *   r2 itself a wildcard                       fix epoch; each remembered (s', site') with
 *                                              s' != s -> race; enter the ring
 *
 * A race found is reported once the lock is let go (hrace__mrace_flush), its sides named by
 * the senders' stacks: sites are stack ids of the senders, which they are asked for. */
#include "mpi/msgrace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "access/stack.h"
#include "base/compiler.h"
#include "base/log.h"
#include "base/map.h"
#include "base/options.h"
#include "core/chan.h"
#include "core/mpicode.h"
#include "core/race.h"
#include "core/stack.h"
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

/* ---- naming the sides ------------------------------------------------------------------
 * Sites other ranks sent, resolved: (rank << 32 | stack id) -> named_t (the interned site,
 * core/race.h, and the name of the call that sent), under names_mu. Each (sender, chain) is
 * asked for once per run. */
static hrace_map_t names = HRACE_MAP_INIT;
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t next_ask;

typedef struct site_query { uint32_t id; int32_t asker, reply_tag; } site_query_t;

/* Reply tags of site queries: apart from the synchronous sends' (bit 30, ssend.c) and the
 * threads' (small numbers, core/runtime.c). */
static int32_t ask_tag(void) {
  return (int32_t)(0x20000000u | (atomic_fetch_add(&next_ask, 1) & 0x1fffffffu));
}

/* A side as reported: the send's code and the MPI call that sent from it. */
typedef struct named { const hrace_srcloc_t *loc; const char *fn; } named_t;

static const char unknown_fn[] = "send";   /* a side known only by its code address */

/* Stack id `id` of rank src, which sent it in a frame: its frames and the sending call's name
 * from src's progress thread (the reply: the name, NUL-terminated, then the packed frames). */
static named_t ask(int src, uint32_t id) {
  uint64_t key = (uint64_t)(uint32_t)src << 32 | id;
  pthread_mutex_lock(&names_mu);
  const named_t *got = hrace_map_get(&names, key);
  pthread_mutex_unlock(&names_mu);
  if (got) return *got;
  site_query_t q = { id, hrace__proc.rank, ask_tag() };
  hrace__chan_send(src, HRACE_CHAN_SITEQ, &q, sizeof q, NULL, 0);
  size_t n;
  char *bytes = hrace__chan_wait(src, q.reply_tag, &n);
  const char *end = bytes ? memchr(bytes, 0, n) : NULL;
  named_t v = { NULL, unknown_fn };
  if (end && end > bytes) {
    size_t fl = (size_t)(end - bytes) + 1;
    v.loc = fl < n ? hrace__site_unpack(bytes + fl, (uint32_t)(n - fl)) : NULL;
    v.fn = strdup(bytes);   /* kept with the name: one per (sender, chain) */
  }
  free(bytes);
  if (!v.loc || !v.fn) {
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
      hrace__warn("rank %d could not name the code of a send it made (stack %u): a message "
                  "race shows it as ??", src, id);
    v.loc = hrace__site_intern(NULL, NULL, 0);
    if (!v.fn) v.fn = unknown_fn;
  }
  named_t *keep = malloc(sizeof *keep);
  if (!keep) return v;
  *keep = v;
  pthread_mutex_lock(&names_mu);
  named_t *was = hrace_map_get(&names, key);
  if (!was) hrace_map_put(&names, key, keep);
  pthread_mutex_unlock(&names_mu);
  if (was) {   /* another thread asked at the same time: keep one */
    if (v.fn != unknown_fn) free((void *)v.fn);
    free(keep);
  }
  return v;
}

/* The MPI call that sent from each of this process's chains: stack id -> "MPI_Isend", ...,
 * under fns_mu. A thread remembers the ids it entered last, so a send from a known chain takes
 * no lock (one chain is one call site, so one call). */
static hrace_map_t send_fns = HRACE_MAP_INIT;
static pthread_mutex_t fns_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread uint32_t fn_seen[16] __attribute__((tls_model("initial-exec")));

static const char *send_fn(uint32_t id) {
  pthread_mutex_lock(&fns_mu);
  const char *fn = hrace_map_get(&send_fns, id);
  pthread_mutex_unlock(&fns_mu);
  return fn ? fn : unknown_fn;
}

/* The site a frame from src carried, as frames of code and the call (see msgrace.h): this
 * process's own stack, a code address of the executable, or another rank's stack, which it is
 * asked for. */
static named_t name(int src, uint32_t site) {
  if (!site) return (named_t){ hrace__site_intern(NULL, NULL, 0), unknown_fn };
  if (site & HRACE_SITE_PC) return (named_t){ hrace__site_here(0, hrace__site_decode(site)), unknown_fn };
  if (src != hrace__proc.rank) return ask(src, site);
  const uintptr_t *pcs;
  return (named_t){ hrace__stack_get(site, &pcs) ? hrace__site_here(site, pcs[0])
                                                 : hrace__site_intern(NULL, NULL, 0),
                    send_fn(site) };
}

void hrace__mrace_on_query(const void *buf, size_t bytes, int src) {
  site_query_t q;
  if (bytes != sizeof q || src < 0) {
    hrace__warn("protocol error: malformed site query from rank %d dropped", src);
    return;
  }
  memcpy(&q, buf, sizeof q);
  const uintptr_t *pcs;
  const void *packed = NULL;
  uint32_t len = 0;
  if (hrace__stack_get(q.id, &pcs)) packed = hrace__site_pack(hrace__site_here(q.id, pcs[0]), &len);
  if (!packed) {
    hrace__chan_reply(src, q.reply_tag, NULL, 0);
    return;
  }
  const char *fn = send_fn(q.id);
  size_t fl = strlen(fn) + 1;
  char *reply = malloc(fl + len);
  if (!reply) {
    hrace__chan_reply(src, q.reply_tag, NULL, 0);
    return;
  }
  memcpy(reply, fn, fl);
  memcpy(reply + fl, packed, len);
  hrace__chan_reply(src, q.reply_tag, reply, fl + len);
  free(reply);
}

static unsigned depth(void) {
  long d = hrace__opt.stack_depth;
  return d < 1 ? 1 : d > HRACE_REPORT_FRAMES ? HRACE_REPORT_FRAMES : (unsigned)d;
}

/* Both sides are sends made elsewhere, named by their senders' caller chains. */
static void report(int src_a, uint32_t site_a, int src_b, uint32_t site_b) {
  if (src_b < src_a) {   /* the lower rank first: the same race reads the same in every run */
    int s = src_a;
    uint32_t t = site_a;
    src_a = src_b, site_a = site_b, src_b = s, site_b = t;
  }
  hrace_report_t r = { .kind = "message", .window = NULL, .owner = hrace__proc.rank };
  named_t a = name(src_a, site_a), b = name(src_b, site_b);
  hrace__report_side(&r.a, a.fn, src_a, 0, 0, 0, a.loc, 0);
  hrace__report_side(&r.b, b.fn, src_b, 0, 0, 0, b.loc, 0);
  if (hrace__report_seen(&r)) return;
  r.a.nframes = hrace__site_frames(a.loc, r.a.frames, depth());
  r.b.nframes = hrace__site_frames(b.loc, r.b.frames, depth());
  char hint[200];
  snprintf(hint, sizeof hint, "neither send is ordered before the other, and a wildcard receive "
           "(MPI_ANY_SOURCE) at rank %d can match either message: which one it gets depends on "
           "timing", r.owner);
  r.hint = hint;
  hrace__report_race(&r);
}

/* Races found under hrace__post_mu, reported by hrace__mrace_flush. */
typedef struct pend { int src_a, src_b; uint32_t site_a, site_b; struct pend *next; } pend_t;
__thread void *hrace__mrace_pending __attribute__((tls_model("initial-exec")));

static void found(int src_a, uint64_t site_a, int src_b, uint64_t site_b) {
  pend_t *p = malloc(sizeof *p), **end = (pend_t **)&hrace__mrace_pending;
  if (!p) return;
  *p = (pend_t){ src_a, src_b, (uint32_t)site_a, (uint32_t)site_b, NULL };
  while (*end) end = &(*end)->next;   /* in the order found */
  *end = p;
}

void hrace__mrace_flush(void) {
  pend_t *p = hrace__mrace_pending;
  hrace__mrace_pending = NULL;
  for (pend_t *nx; p; p = nx) {
    nx = p->next;
    report(p->src_a, p->site_a, p->src_b, p->site_b);
    free(p);
  }
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
      found(src, h->site, r->src, r->site);
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
    if (c->src != src) found(c->src, c->site, src, h->site);
  mr->ring[mr->next] = (wdone_t){ p->seq, p->tag, src, h->site, p->ex, p->ec };
  mr->next = (mr->next + 1) % RING;
  if (mr->n < RING) mr->n++;
}

void hrace__mrace_free(hrace_comm_t *rec) {
  free(rec->mr);
  rec->mr = NULL;
}

/* ---- sites --------------------------------------------------------------------------------- */
/* A send's chain is its code address and the shadow stack's innermost return addresses
 * (access/stack.h, hrace__stack_capture_at, which remembers the thread's last chains, so a send
 * from the same place with the same callers costs a compare of at most seven words). */
uint32_t hrace__send_site(uintptr_t pc, const char *fn) {
  uint32_t id = hrace__stack_capture_at(pc);
  if (!id || id >= HRACE_SITE_PC) return hrace__site_encode(pc);
  uint32_t *seen = &fn_seen[id & 15];
  if (HRACE_UNLIKELY(*seen != id)) {
    pthread_mutex_lock(&fns_mu);
    if (!hrace_map_get(&send_fns, id)) hrace_map_put(&send_fns, id, (void *)fn);
    pthread_mutex_unlock(&fns_mu);
    *seen = id;
  }
  return id;
}

/* The main executable's range and load bias: core/mpicode.h. */
uint32_t hrace__site_encode(uintptr_t pc) {
  if (pc < hrace__exe_lo || pc >= hrace__exe_hi || pc - hrace__exe_bias >= HRACE_SITE_PC) return 0;
  return (uint32_t)(pc - hrace__exe_bias) | HRACE_SITE_PC;
}

uintptr_t hrace__site_decode(uint64_t site) {
  return site ? hrace__exe_bias + (uintptr_t)(site & ~(uint64_t)HRACE_SITE_PC) : 0;
}
