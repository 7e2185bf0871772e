/* In-flight origin buffers (see buffers.h).
 *
 * Why no clocks here: a buffer is tracked from the operation's issue to its local completion,
 * both events of the issuing process, and an access that the filter routes here happens in
 * real time inside that interval. Nothing can order such an access after the completion (which
 * has not happened yet) or before the issue (a happens-before edge to the issue would have
 * made it precede the issue in real time), so every conflicting access seen here is a race,
 * and every operation found overlapping at issue is concurrent with the new one. What this
 * cannot see is an access that came *before* the issue in real time without being ordered
 * before it: that needs a history of plain memory (docs/access.md, "Origin buffers touched before
 * the issue: the history"), which the access layer keeps (issue 6).
 *
 * Buffer bytes inside one of this process's own windows (MPI_Get into the local window, a put
 * from it, an MPI_Irecv into it) are also accesses to window memory, where remote operations
 * and other processes' accesses meet them: they go into that window's shadow as a descriptor
 * in flight until local completion, like a remote record.
 *
 * The filter sees one range per distinct buffer hull (a region), shared by every in-flight
 * operation using that buffer, so a loop of puts from one buffer costs one filter update.
 * Owners handed to the filter must stay valid while a reader may hold an old range array:
 * regions (and operations) are recycled through free lists and never freed, and a stale reader
 * finds them dead, or alive for another buffer, which it then checks exactly. One mutex guards
 * everything; only accesses that hit an in-flight buffer take it, and a load of a buffer that
 * only in-flight reads use returns at once. */
#include "rma/buffers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "access/filter.h"
#include "base/map.h"
#include "access/history.h"
#include "core/hooks.h"
#include "core/race.h"
#include "mpi/request.h"
#include "report/compose.h"
#include "report/report.h"
#include "rma/rma.h"
#include "rma/shared.h"
#include "rma/type.h"

typedef struct region region_t;
struct hrace_inflight;

typedef struct span {          /* one buffer: sorted, coalesced absolute (address, length) pairs */
  uintptr_t lo, hi;            /* hull */
  uint64_t *r;                 /* `one` for a contiguous buffer, else malloc'ed */
  uint64_t one[2];
  uint32_t n;
  int writes;
  hrace_aid_t aid;             /* descriptor of its bytes inside local windows, or 0 */
  struct hrace_inflight *op;
  region_t *reg;               /* NULL: every byte lies in this process's windows (issue) */
  struct span *rprev, *rnext;  /* the region's spans */
} span_t;

/* The tracked range (filter owner) of every in-flight buffer with one hull: a loop of puts
 * from one buffer adds one range to the filter, not one per operation. */
struct region {
  int what;                    /* HRACE_BUF_OP (buffers.h) */
  int live;
  int gone;                    /* emptied, waiting to leave the filter (untrack) */
  _Atomic unsigned busy;       /* spans in flight: 0 for an idle region (read without mu) */
  int idle;                    /* emptied, still tracked, on the idle list (below) */
  uintptr_t lo, hi;
  span_t *spans;
  unsigned nwriters;           /* spans that write */
  region_t *prev, *next;       /* live regions, or the free list */
  region_t *iprev, *inext;     /* the idle list, most recently emptied first */
};

/* Idle regions. A program posts the same buffers again and again (a halo exchange's Irecv /
 * Isend, a loop of gets into one buffer): an emptied region stays in the filter for a while,
 * so that the next operation on the same hull reuses it instead of adding and removing a
 * filter range each time (two filter updates and their locks were most of an Irecv's cost).
 * An access to an idle region returns after one atomic load (busy == 0). At most
 * IDLE_MAX + IDLE_BATCH stay; when there are more, the least recently emptied leave the filter
 * together, down to IDLE_MAX: one pass of the filter's removal for IDLE_BATCH of them. A
 * program that puts from a new buffer in every tiny epoch (a staging array walked row by row)
 * paid a whole removal pass per epoch when the oldest left one at a time: ~3 400 instructions
 * per PSCW epoch of one put (callgrind, rank 0), the pass's cost being per entry of the filter,
 * not per region removed. */
enum { IDLE_MAX = 32, IDLE_BATCH = 32 };

typedef struct hrace_inflight {
  int live;
  int indexed;                 /* in `same` (under `hash`): later equal operations join it */
  uint64_t hash;
  struct hrace_inflight *prev, *next;   /* live operations, or the free list */
  hrace_win_t *w;
  int target;                  /* group rank */
  MPI_Request req;             /* request-based operations; MPI_REQUEST_NULL otherwise */
  unsigned op;
  int thread;
  const hrace_srcloc_t *site;
  /* A non-blocking MPI call's buffers (hrace__buffers_track): w is NULL, the call's name and
   * code address stand for op and site (symbolized only if a race is reported). */
  const char *fn;
  uintptr_t pc;
  unsigned nspan;
  span_t span[3];
} hrace_inflight_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_inflight_t *live, *freelist;
static region_t *regions, *free_regions;
static region_t *idle_head, *idle_tail;
static unsigned nidle;

/* Caller holds mu. */
static void idle_unlink(region_t *g) {
  if (g->iprev) g->iprev->inext = g->inext;
  else idle_head = g->inext;
  if (g->inext) g->inext->iprev = g->iprev;
  else idle_tail = g->iprev;
  g->iprev = g->inext = NULL;
  g->idle = 0;
  nidle--;
}

/* Long epochs (docs/rma.md, "Long epochs"): an operation equal to one still in flight (same
 * window, target, call, thread and site, the same buffers byte for byte, neither with a
 * request) completes with it (hrace__buffers_complete finishes both in the same call), so
 * once it has been checked against everything in flight it joins that record instead of
 * adding its own: a loop of accumulates from one buffer holds one record, not one per call.
 * `same` indexes the live records that may be joined. */
static hrace_map_t same = HRACE_MAP_INIT;

static uint64_t op_hash(const hrace_inflight_t *o) {
  uint64_t h = hrace_hash_combine(HRACE_HASH_SEED, (uint64_t)(uintptr_t)o->w);
  h = hrace_hash_combine(h, ((uint64_t)(uint32_t)o->target << 32) | o->op);
  h = hrace_hash_combine(h, ((uint64_t)(uint32_t)o->thread << 32) | o->nspan);
  h = hrace_hash_combine(h, (uint64_t)(uintptr_t)o->site);
  for (unsigned j = 0; j < o->nspan; j++) {
    h = hrace_hash_combine(h, o->span[j].lo);
    h = hrace_hash_combine(h, ((uint64_t)o->span[j].n << 1) | (o->span[j].writes != 0));
  }
  return h;
}

static bool op_eq(const void *val, const void *arg) {
  const hrace_inflight_t *a = val, *b = arg;
  if (!a->live || a->w != b->w || a->target != b->target || a->op != b->op ||
      a->thread != b->thread || a->site != b->site || a->nspan != b->nspan ||
      a->req != MPI_REQUEST_NULL || b->req != MPI_REQUEST_NULL)
    return false;
  for (unsigned j = 0; j < a->nspan; j++) {
    const span_t *x = &a->span[j], *y = &b->span[j];
    if (x->lo != y->lo || x->hi != y->hi || x->n != y->n || (x->writes != 0) != (y->writes != 0) ||
        memcmp(x->r, y->r, 2 * (size_t)x->n * sizeof *x->r))
      return false;
  }
  return true;
}

static void span_drop(span_t *s) {
  if (s->r != s->one) free(s->r);
  s->r = NULL;
}

/* The first byte of [lo, hi) that range list s covers, via *at; 0 if none. */
static int span_hits(const span_t *s, uintptr_t lo, uintptr_t hi, uintptr_t *at) {
  if (lo >= s->hi || hi <= s->lo) return 0;
  for (uint32_t i = 0; i < s->n; i++) {
    uintptr_t a = (uintptr_t)s->r[2 * i], b = a + (uintptr_t)s->r[2 * i + 1];
    if (a < hi && lo < b) {
      *at = a > lo ? a : lo;
      return 1;
    }
  }
  return 0;
}

/* Do two range lists share a byte? Merge scan (both sorted). */
static int spans_meet(const span_t *x, const span_t *y, uintptr_t *at, uintptr_t *end) {
  if (x->lo >= y->hi || y->lo >= x->hi) return 0;
  uint32_t i = 0, j = 0;
  while (i < x->n && j < y->n) {
    uintptr_t a0 = (uintptr_t)x->r[2 * i], a1 = a0 + (uintptr_t)x->r[2 * i + 1];
    uintptr_t b0 = (uintptr_t)y->r[2 * j], b1 = b0 + (uintptr_t)y->r[2 * j + 1];
    if (a0 < b1 && b0 < a1) {
      *at = a0 > b0 ? a0 : b0;
      *end = a1 < b1 ? a1 : b1;
      return 1;
    }
    if (a1 <= b1) i++;
    else j++;
  }
  return 0;
}

static void op_side(hrace_report_side_t *s, const hrace_inflight_t *o, uint64_t off, uint64_t len) {
  hrace__report_side(s, o->fn ? o->fn : hrace__op_name(o->op), hrace__proc.rank, o->thread, off,
                     len, o->site, o->pc);
  if (o->site) s->nframes = hrace__site_frames(o->site, s->frames, HRACE_REPORT_FRAMES);   /* caller chain */
}

/* An origin-buffer race: `now` (an access, or a newly issued operation) meets in-flight
 * operation o's buffer s at byte `at`. */
static void report(const span_t *s, const hrace_report_side_t *now, uintptr_t at) {
  const hrace_inflight_t *o = s->op;
  hrace_report_t r = { .kind = "origin-buffer", .window = o->w ? o->w->name : NULL,
                       .owner = hrace__proc.rank,
                       .base = s->lo, .addr = at };
  r.a = *now;
  op_side(&r.b, o, 0, s->hi - s->lo);
  hrace__report_race(&r);
}

/* Does byte a lie in one of this process's windows? */
static int in_window(uintptr_t a) {
  hrace_range_t rs[8];
  unsigned n = hrace__filter_find(a, 1, rs, 8);
  for (unsigned i = 0; i < n && i < 8; i++)
    if (rs[i].kind == HRACE_TRACK_WINDOW) return 1;
  return 0;
}

/* hrace__buffer_access_hook (access/filter.h): an access inside a tracked buffer range. */
static int buffer_access(void *owner, uintptr_t addr, uintptr_t len, uint16_t flags, uint16_t op,
                         uint32_t atomic_class, uintptr_t pc) {
  if (*(int *)owner == HRACE_BUF_PEER) {
    hrace__shared_access(owner, addr, len, flags, op, atomic_class, pc);
    return 0;
  }
  region_t *g = owner;
  if (!atomic_load_explicit(&g->busy, memory_order_acquire)) return 1;   /* idle (idle_unlink) */
  pthread_mutex_lock(&mu);
  if (g->live && ((flags & HRACE_ACC_WRITE) || g->nwriters)) {   /* else: everyone reads */
    hrace_report_side_t now;
    int known = 0;
    for (const span_t *s = g->spans; s; s = s->rnext) {
      uintptr_t at;
      if (!(flags & HRACE_ACC_WRITE) && !s->writes) continue;
      if (!span_hits(s, addr, addr + len, &at)) continue;
      /* Bytes in one of this process's windows hold the operation's descriptor in the
       * window's shadow too (into_windows), which finds this race with the window's name and
       * offsets: one race, one report. */
      if (s->aid && in_window(at)) continue;
      if (!known++) {
        hrace__report_side(&now, hrace__op_name(op), hrace__proc.rank, hrace__thread()->tid, 0,
                           len, NULL, pc);
        hrace__race_side_frames(&now, hrace__stack_capture_hook ? hrace__stack_capture_hook(pc) : 0,
                                pc);
      }
      now.offset = addr - s->lo;
      report(s, &now, at);
    }
  }
  pthread_mutex_unlock(&mu);
  return 0;
}
static void *buffers_track(const hrace_nbbuf_t *b, int n, const char *fn, uintptr_t pc);
static void buffers_done(void *op);
static void window_leaving(uintptr_t lo, uintptr_t hi);
__attribute__((constructor)) static void register_buffer_access(void) {
  hrace__buffer_access_hook = buffer_access;
  hrace__window_leaving_hook = window_leaving;
  hrace__nb_track_hook = buffers_track;
  hrace__nb_done_hook = buffers_done;
}

/* The descriptor of o's access to span s (made on first use): in flight until local
 * completion. */
static hrace_aid_t span_aid(hrace_inflight_t *o, span_t *s) {
  if (!s->aid) {
    hrace_access_t d = {
      .exporter = hrace__thread_exporter(), .op = (uint16_t)o->op,
      .flags = (s->writes ? HRACE_ACC_WRITE : HRACE_ACC_READ) | HRACE_ACC_REMOTE,
      .rank = hrace__proc.rank, .thread = o->thread, .loc = o->site,
    };
    atomic_init(&d.clk, HRACE_CLK_INF);
    s->aid = hrace__access_new(&d);
  }
  return s->aid;
}

/* The tracked ranges meeting [lo, hi): a binary search in the filter, not a walk over every
 * live buffer, so an epoch of n operations costs O(n log n), not O(n^2). *out is `stack` or
 * a heap array for the caller to free. */
static unsigned tracked(uintptr_t lo, uintptr_t hi, hrace_range_t *stack, unsigned nstack,
                        hrace_range_t **out) {
  *out = stack;
  unsigned k = hi > lo ? hrace__filter_find(lo, hi - lo, stack, nstack) : 0;
  while (k > nstack) {
    if (*out != stack) free(*out);
    nstack = k;
    if (!(*out = malloc(nstack * sizeof **out))) abort();
    k = hrace__filter_find(lo, hi - lo, *out, nstack);
  }
  return k;
}

/* The live region behind a tracked range, or NULL (a window, a peer's segment, a region that
 * has emptied and waits to be untracked, or one recycled for another hull). Caller holds mu. */
static region_t *region_at(const hrace_range_t *fr) {
  if (fr->kind != HRACE_TRACK_BUFFER || *(int *)fr->owner != HRACE_BUF_OP) return NULL;
  region_t *g = fr->owner;
  return g->live && g->lo == fr->lo && g->hi == fr->hi ? g : NULL;
}

/* The bytes of span s that lie in this process's windows go to their shadow. `wins` holds the
 * tracked ranges the issue's look-up found over s's hull (nw of them), or is NULL: look up. */
static void into_windows(hrace_inflight_t *o, span_t *s, const hrace_range_t *wins, unsigned nw) {
  hrace_range_t stack[8], *rs = NULL;
  if (!wins) nw = tracked(s->lo, s->hi, stack, 8, &rs), wins = rs;
  for (unsigned i = 0; i < nw; i++) {
    const hrace_range_t *fr = &wins[i];
    if (fr->kind != HRACE_TRACK_WINDOW) continue;
    hrace_shadow_t *cells = fr->owner;
    for (uint32_t j = 0; j < s->n; j++) {
      uintptr_t a = (uintptr_t)s->r[2 * j], b = a + (uintptr_t)s->r[2 * j + 1];
      if (a < fr->lo) a = fr->lo;
      if (b > fr->hi) b = fr->hi;
      if (a >= b) continue;
      /* A non-blocking call's descriptor needs a site like an RMA operation's (race.c reads
       * its frames): made once, only for bytes in a window. */
      if (!o->site && o->fn) o->site = hrace__site_here(0, o->pc);
      hrace__shadow_access(cells, a - fr->lo, b - a, span_aid(o, s), hrace__thread_view(),
                           hrace__race_sink, cells);
    }
  }
  if (rs && rs != stack) free(rs);
}

/* Does the union of the window ranges among rs[0..nr) (address order) hold every byte of s? */
static int all_in_windows(const span_t *s, const hrace_range_t *rs, unsigned nr) {
  for (uint32_t j = 0; j < s->n; j++) {
    uintptr_t at = (uintptr_t)s->r[2 * j], b = at + (uintptr_t)s->r[2 * j + 1];
    for (unsigned i = 0; i < nr && at < b; i++) {
      if (rs[i].kind != HRACE_TRACK_WINDOW) continue;
      if (rs[i].lo > at) break;   /* sorted by lo: nothing later holds byte `at` */
      if (rs[i].hi > at) at = rs[i].hi;
    }
    if (at < b) return 0;
  }
  return 1;
}

static void on_request_done(void *arg, MPI_Request req, const MPI_Status *status);
static void finish(hrace_inflight_t *o, region_t **gone);
static void untrack(region_t *gone);

/* Records and regions come from blocks of SLAB, never freed (owners handed to the filter stay
 * valid, see the top): an epoch of 64 000 puts from distinct buffers made a malloc for each
 * of both, ~400 instructions apiece through the interposed allocator (access/alloc.c). */
enum { SLAB = 64 };

/* Caller holds mu. The live region of hull [lo, hi), created (and tracked) if new: `found`,
 * the one issue's look-up met (every live region is in the filter, tracked under mu, so that
 * look-up finds it), or NULL. */
static region_t *region_of(uintptr_t lo, uintptr_t hi, region_t *found, int *created) {
  if (found) {
    if (found->idle) idle_unlink(found);
    return found;
  }
  if (!free_regions) {
    region_t *b = malloc(SLAB * sizeof *b);
    if (!b) abort();
    for (unsigned i = 0; i < SLAB; i++) b[i].next = free_regions, free_regions = &b[i];
  }
  region_t *g = free_regions;
  free_regions = g->next;
  *g = (region_t){ .what = HRACE_BUF_OP, .live = 1, .lo = lo, .hi = hi, .next = regions };
  if (regions) regions->prev = g;
  regions = g;
  *created = 1;
  return g;
}

/* Caller holds mu. Span s of a live record enters region g. */
static void region_join(region_t *g, span_t *s) {
  s->reg = g;
  s->rprev = NULL;
  s->rnext = g->spans;
  if (s->rnext) s->rnext->rprev = s;
  g->spans = s;
  g->nwriters += s->writes != 0;
  atomic_fetch_add_explicit(&g->busy, 1, memory_order_release);
}

/* Check new operation n (its spans built) against everything in flight, then track it. A
 * joinable one (an RMA operation without a request) may join an equal record instead. The
 * RMA bits (own windows' shadow, the history of earlier accesses) need n->w. Returns the
 * live record, or NULL if n joined one.
 *
 * A span whose every byte lies in this process's windows (the wavefront's put of a row's last
 * value, a get into the local window) gets no region: its descriptor in the windows' shadow
 * (into_windows) finds every conflicting load, store and operation there, and the buffer
 * checks skip such bytes anyway (one race, one report). So such an operation changes nothing
 * in the filter: no range added at issue, none removed at completion, no version change that
 * every thread's caches would miss on (a PSCW epoch with one put from window memory spent
 * ~3 100 instructions in the removal alone). Should the window leave the filter while the
 * span is in flight, window_leaving (below) gives it its region then. */
enum { WIN_KEEP = 4 };   /* window ranges kept per span from the issue's look-up */
static hrace_inflight_t *issue(hrace_inflight_t *n, int joinable) {
  pthread_mutex_lock(&mu);
  /* Two operations in flight over the same bytes, one of them writing: a race (both are in
   * flight now, see the top of this file). The same look-up says which spans meet a window
   * of this process (`inwin`; their window ranges in `wins` for into_windows) and which lie
   * in windows entirely (`inside`: no region), and which region already tracks each span's
   * hull (`hull`), so that finding it costs no second look-up (a compare-and-swap's three
   * buffers took nine filter look-ups per call). */
  unsigned inwin = 0, inside = 0;
  region_t *hull[3] = { NULL, NULL, NULL };   /* the live region of each span's hull, if any */
  hrace_range_t wins[3][WIN_KEEP];
  unsigned nwin[3] = { 0, 0, 0 };             /* above WIN_KEEP: into_windows looks again */
  for (unsigned j = 0; j < n->nspan; j++) {
    const span_t *ns = &n->span[j];
    hrace_range_t stack[8], *rs;
    unsigned nr = tracked(ns->lo, ns->hi, stack, 8, &rs);
    for (unsigned i = 0; i < nr; i++) {
      if (rs[i].kind == HRACE_TRACK_WINDOW) {
        inwin |= 1u << j;
        if (nwin[j] < WIN_KEEP) wins[j][nwin[j]] = rs[i];
        nwin[j]++;
      }
      region_t *g = region_at(&rs[i]);
      if (g && !hull[j] && g->lo == ns->lo && g->hi == ns->hi) hull[j] = g;
      if (!g || (!g->nwriters && !ns->writes)) continue;
      for (const span_t *s = g->spans; s; s = s->rnext) {
        uintptr_t at, end;
        if ((!s->writes && !ns->writes) || !spans_meet(s, ns, &at, &end)) continue;
        /* In this process's window both descriptors meet in its shadow (into_windows):
         * reported there, once. */
        if (s->aid && in_window(at)) continue;
        hrace_report_side_t now;
        op_side(&now, n, at - s->lo, end - at);
        report(s, &now, at);
      }
    }
    if ((inwin & (1u << j)) && all_in_windows(ns, rs, nr)) inside |= 1u << j;
    if (rs != stack) free(rs);
  }
#define WINS(j) (nwin[j] <= WIN_KEEP ? wins[j] : NULL), nwin[j]
  if (joinable) {
    uint64_t h = op_hash(n);
    hrace_inflight_t *o = hrace_map_find(&same, h, op_eq, n);
    if (o) {
      /* Checked against every operation in flight above; what it would record in the local
       * windows' shadow and the history check are made under the record it joins. */
      for (unsigned j = 0; j < o->nspan; j++) {
        span_drop(&n->span[j]);
        if (inwin & (1u << j)) into_windows(o, &o->span[j], WINS(j));   /* equal spans */
        if (hrace__filter_history())
          hrace__history_check(o->span[j].r, o->span[j].n, span_aid(o, &o->span[j]),
                               hrace__thread_view(), hrace__history_report, &o->w->cells);
      }
      pthread_mutex_unlock(&mu);
      return NULL;
    }
    n->indexed = 1;
    n->hash = h;
  }
  if (!freelist) {
    hrace_inflight_t *b = malloc(SLAB * sizeof *b);
    if (!b) abort();
    for (unsigned i = 0; i < SLAB; i++) b[i].next = freelist, freelist = &b[i];
  }
  hrace_inflight_t *o = freelist;
  freelist = o->next;
  /* The record and its spans in use, not all three (a copy of the whole was ~240 of a put's
   * instructions). */
  memcpy(o, n, offsetof(hrace_inflight_t, span) + n->nspan * sizeof n->span[0]);
  o->next = live;
  if (live) live->prev = o;
  live = o;
  if (o->indexed) hrace_map_add(&same, o->hash, o);
  region_t *added[3];
  int nadded = 0, woke = 0;
  for (unsigned j = 0; j < o->nspan; j++) {
    span_t *s = &o->span[j];
    if (n->span[j].r == n->span[j].one) s->r = s->one;   /* moved with the record */
    s->op = o;
    s->reg = NULL;
    s->rprev = s->rnext = NULL;
    if (!(inside & (1u << j))) {
      int created = 0;
      woke |= hull[j] && hull[j]->idle;
      region_join(region_of(s->lo, s->hi, hull[j], &created), s);
      if (created) added[nadded++] = s->reg;
    }
    if (inwin & (1u << j)) into_windows(o, s, WINS(j));
  }
#undef WINS
  /* An idle region in flight again: a thread that found it idle skips it until the filter's
   * version changes (access/filter.h), so it changes now, after the count above: a thread
   * that reads the new version finds the count too. */
  if (woke) hrace__filter_touch();
  /* Tracked first, then the history of earlier accesses by other threads (issue 6): an access
   * racing with this very issue is seen by one of the two. Both under mu, so o cannot be
   * completed and recycled by another thread in between. */
  for (int i = 0; i < nadded; i++)
    hrace__filter_add(added[i]->lo, added[i]->hi, HRACE_TRACK_BUFFER, added[i]);
  /* Without a history (one thread has run instrumented code: access/history.h) there is
   * nothing to check, and the descriptors span_aid would make for it are not needed. */
  if (o->w && hrace__filter_history())
    for (unsigned j = 0; j < o->nspan; j++)
      hrace__history_check(o->span[j].r, o->span[j].n, span_aid(o, &o->span[j]),
                           hrace__thread_view(), hrace__history_report, &o->w->cells);
  pthread_mutex_unlock(&mu);
  return o;
}

/* hrace__window_leaving_hook (access/filter.h): window memory [lo, hi) is about to leave the
 * filter (MPI_Win_free, MPI_Win_detach) while it still is tracked. A span in flight there that
 * had no region (every byte in windows, see issue) gets one now, before the window's range
 * goes: from then on the buffer's own range answers for it, as for any other buffer. */
static void window_leaving(uintptr_t lo, uintptr_t hi) {
  pthread_mutex_lock(&mu);
  for (hrace_inflight_t *o = live; o; o = o->next)
    for (unsigned j = 0; j < o->nspan; j++) {
      span_t *s = &o->span[j];
      if (s->reg || s->lo >= hi || lo >= s->hi) continue;
      int created = 0;
      region_join(region_of(s->lo, s->hi, NULL, &created), s);
      hrace__filter_add(s->lo, s->hi, HRACE_TRACK_BUFFER, s->reg);
    }
  pthread_mutex_unlock(&mu);
}

void hrace__buffers_issue(const hrace_rma_call_t *c, const hrace_srcloc_t *site) {
  hrace_inflight_t n = { .live = 1, .w = c->w, .target = c->target,
                         .req = c->req ? *c->req : MPI_REQUEST_NULL, .op = c->op,
                         .thread = hrace__thread()->tid, .site = site };
  for (int b = 0; b < c->nbuf; b++) {
    const hrace_rma_buf_t *ub = &c->buf[b];
    span_t *s = &n.span[n.nspan];
    uint64_t *r = NULL;
    uint32_t k = 0;
    if (ub->count <= 0 ||
        hrace__type_ranges_in(ub->dt, ub->count, s->one, &r, &k) != MPI_SUCCESS || !k) {
      if (r != s->one) free(r);
      continue;
    }
    n.nspan++;
    s->r = r;
    s->n = k;
    s->writes = ub->writes;
    for (uint32_t j = 0; j < k; j++) r[2 * j] += (uint64_t)(uintptr_t)ub->addr;
    s->lo = (uintptr_t)r[0];
    s->hi = (uintptr_t)(r[2 * (k - 1)] + r[2 * (k - 1) + 1]);
  }
  if (!n.nspan && !c->req) return;
  hrace_inflight_t *o = issue(&n, !c->req);
  if (o && c->req && *c->req != MPI_REQUEST_NULL) hrace__request_watch(*c->req, on_request_done, o);
}

static int cmp_range(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The absolute byte ranges of pieces b[0..n) that the call reads (writes 0) or writes, sorted
 * and coalesced, as span s; 0 if there are none. */
static int pieces_span(const hrace_nbbuf_t *b, int n, int writes, span_t *s) {
  uint64_t *all = NULL;
  size_t k = 0, cap = 0;
  int sorted = 1;
  for (int i = 0; i < n; i++) {
    uint64_t *r;
    uint32_t m;
    if ((b[i].writes != 0) != writes || b[i].count <= 0 || !b[i].addr) continue;
    if (hrace__type_ranges(b[i].dt, b[i].count, &r, &m) != MPI_SUCCESS || !m) continue;
    if (!all) {   /* the first piece: its own array (a single piece needs no copy) */
      for (uint32_t j = 0; j < m; j++) r[2 * j] += (uint64_t)(uintptr_t)b[i].addr;
      all = r;
      k = cap = m;
      continue;
    }
    if (k + m > cap) {
      cap = 2 * (k + m);
      if (!(all = realloc(all, 2 * cap * sizeof *all))) abort();
    }
    for (uint32_t j = 0; j < m; j++) {
      all[2 * (k + j)] = r[2 * j] + (uint64_t)(uintptr_t)b[i].addr;
      all[2 * (k + j) + 1] = r[2 * j + 1];
      if (k + j && all[2 * (k + j)] < all[2 * (k + j - 1)]) sorted = 0;
    }
    k += m;
    free(r);
  }
  if (!k) return 0;
  if (!sorted) qsort(all, k, 2 * sizeof *all, cmp_range);
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    uint64_t lo = all[2 * i], hi = lo + all[2 * i + 1];
    if (m && all[2 * (m - 1)] + all[2 * (m - 1) + 1] >= lo) {
      if (hi > all[2 * (m - 1)] + all[2 * (m - 1) + 1]) all[2 * (m - 1) + 1] = hi - all[2 * (m - 1)];
    } else {
      all[2 * m] = lo;
      all[2 * m + 1] = hi - lo;
      m++;
    }
  }
  s->r = all;
  s->n = (uint32_t)m;
  s->writes = writes;
  s->lo = (uintptr_t)all[0];
  s->hi = (uintptr_t)(all[2 * (m - 1)] + all[2 * (m - 1) + 1]);
  return 1;
}

/* hrace__nb_track_hook (mpi/request.h): the buffers of a non-blocking call, in flight until
 * hrace__nb_done_hook. The same record as an RMA operation's, with no window: it meets RMA
 * buffers and other calls' buffers at the issue, and loads and stores through the filter. */
static void *buffers_track(const hrace_nbbuf_t *b, int n, const char *fn, uintptr_t pc) {
  hrace_inflight_t o = { .live = 1, .target = -1, .req = MPI_REQUEST_NULL, .op = HRACE_OP_NBCALL,
                         .thread = hrace__thread()->tid, .fn = fn, .pc = pc };
  if (pieces_span(b, n, 1, &o.span[o.nspan])) o.nspan++;
  if (pieces_span(b, n, 0, &o.span[o.nspan])) o.nspan++;
  if (!o.nspan) return NULL;
  return issue(&o, 0);
}

static void buffers_done(void *op) {
  hrace_inflight_t *o = op;
  region_t *gone = NULL;
  pthread_mutex_lock(&mu);
  if (o->live && !o->w) finish(o, &gone);
  pthread_mutex_unlock(&mu);
  untrack(gone);
}

/* Caller holds mu. Local completion of o: its spans leave their regions (an emptied region is
 * untracked, into `gone` for the caller to remove from the filter outside mu), its
 * descriptors in window shadows get their epoch. */
static void finish(hrace_inflight_t *o, region_t **gone) {
  hrace_clk_t now = hrace__thread_epoch();
  uint32_t e = hrace__thread_exporter();
  for (unsigned j = 0; j < o->nspan; j++) {
    span_t *s = &o->span[j];
    if (s->aid) {
      hrace_access_t *a = hrace__access_get(s->aid);
      a->exporter = e;
      hrace__access_complete(a, now);
    }
    span_drop(s);
    region_t *g = s->reg;
    if (!g) continue;   /* in windows only (issue) */
    if (s->rprev) s->rprev->rnext = s->rnext;
    else g->spans = s->rnext;
    if (s->rnext) s->rnext->rprev = s->rprev;
    g->nwriters -= s->writes != 0;
    atomic_fetch_sub_explicit(&g->busy, 1, memory_order_release);
    if (g->spans) continue;
    /* Idle (see IDLE_MAX): the most recently emptied first; the oldest leave. */
    g->idle = 1;
    g->iprev = NULL;
    g->inext = idle_head;
    if (idle_head) idle_head->iprev = g;
    else idle_tail = g;
    idle_head = g;
    if (++nidle <= IDLE_MAX + IDLE_BATCH) continue;
    while (nidle > IDLE_MAX) {
      g = idle_tail;
      idle_unlink(g);
      g->live = 0;
      g->gone = 1;
      if (g->prev) g->prev->next = g->next;
      else regions = g->next;
      if (g->next) g->next->prev = g->prev;
      g->prev = NULL;
      g->next = *gone;
      *gone = g;
    }
  }
  if (o->indexed) hrace_map_remove(&same, o->hash, o);
  o->indexed = 0;
  o->live = 0;
  o->nspan = 0;
  if (o->prev) o->prev->next = o->next;
  else live = o->next;
  if (o->next) o->next->prev = o->prev;
  o->prev = NULL;
  o->next = freelist;
  freelist = o;
}

/* Untrack emptied regions, then recycle them (a reader holding an old filter array may still
 * reach one: it finds it dead, or alive for another buffer and checks that one exactly). */
static int region_gone(void *owner) {
  return *(int *)owner == HRACE_BUF_OP && ((region_t *)owner)->gone;
}

static void untrack(region_t *gone) {
  if (!gone) return;
  hrace__filter_remove_if(HRACE_TRACK_BUFFER, region_gone);   /* one pass for all of them */
  pthread_mutex_lock(&mu);
  while (gone) {
    region_t *g = gone;
    gone = g->next;
    g->gone = 0;
    g->next = free_regions;
    free_regions = g;
  }
  pthread_mutex_unlock(&mu);
}

void hrace__buffers_complete(hrace_win_t *w, int target) {
  region_t *gone = NULL;
  hrace__rma_dup_reset();   /* repeated calls (ops.c) start over */
  pthread_mutex_lock(&mu);
  for (hrace_inflight_t *o = live, *nx; o; o = nx) {
    nx = o->next;
    if (o->w == w && (target < 0 || o->target == target)) finish(o, &gone);
  }
  pthread_mutex_unlock(&mu);
  untrack(gone);
}

void hrace__buffers_window_gone(hrace_win_t *w) { hrace__buffers_complete(w, -1); }

/* MPI_Wait / MPI_Test completed a request-based operation's request: local completion
 * (MPI-3.1 Sec. 11.3.5). For MPI_Rget it is remote completion too: the request completes when
 * the data is in the origin buffer, i.e. when it has been read at the target (docs/rma.md,
 * "Request-based operations"), so the target's record gets its epoch here, as at a flush to
 * that target. The others' target side stays in flight until a flush, unlock, ... The watch
 * may fire after a flush completed the operation already: the request then matches no live
 * operation (handles are not reused before MPI returns them completed). A freed request
 * (status NULL: MPI_Request_free) completes nothing remotely: nobody knows when it ends. */
static void on_request_done(void *arg, MPI_Request req, const MPI_Status *status) {
  hrace_inflight_t *o = arg;
  region_t *gone = NULL;
  hrace_win_t *w = NULL;
  int target = -1;
  pthread_mutex_lock(&mu);
  if (o->live && o->req == req) {
    if (o->op == HRACE_OP_RGET && status) w = o->w, target = o->target;
    finish(o, &gone);
  }
  pthread_mutex_unlock(&mu);
  untrack(gone);
  if (w) hrace__rma_complete_remote(w, target);
}
