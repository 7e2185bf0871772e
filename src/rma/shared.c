/* Loads and stores into other processes' segments of shared-memory windows (see shared.h). */
#include "rma/shared.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "access/filter.h"
#include "base/hash.h"
#include "core/hooks.h"
#include "core/race.h"
#include "core/proc.h"
#include "core/thread.h"
#include "report/symbolize.h"
#include "rma/buffers.h"
#include "rma/rma.h"

typedef struct fwd {           /* one batched access (a run of them, coalesced) */
  uint64_t off, len;           /* in the owner's segment */
  uint32_t exporter;           /* the accessing thread's clock entry and its value */
  hrace_clk_t epoch;
  uint32_t view;               /* index into the batch's views: the thread's global clock */
  int thread;
  uint16_t flags, op;
  uint32_t atomic_class;
  uintptr_t pc;
  uint32_t stack;              /* the caller chain (core/stack.h), taken once per entry */
} fwd_t;

typedef struct hrace_peer {
  int what;                    /* HRACE_BUF_PEER (buffers.h) */
  struct hrace_peer *next;     /* all peers, live and dead (never freed: see buffers.c) */
  hrace_win_t *w;              /* NULL once the window is freed */
  int world;                   /* the owner */
  uintptr_t base;
  uint64_t size;
  fwd_t *pend;
  unsigned npend, cap;
  hrace_clk_t *views;          /* nviews clocks of view_len entries */
  unsigned nviews, capviews;
} hrace_peer_t;

#define BATCH_MAX 4096         /* entries per message */
#define COALESCE_WINDOW 4      /* how many recent entries an access may extend */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_peer_t *peers;

void hrace__shared_register(hrace_win_t *w) {
  for (int r = 0; r < w->gsize; r++) {
    MPI_Aint size;
    int du;
    void *ptr;
    if (r == w->grank || PMPI_Win_shared_query(w->win, r, &size, &du, &ptr) != MPI_SUCCESS ||
        size <= 0)
      continue;
    hrace_peer_t *p = calloc(1, sizeof *p);
    if (!p) abort();
    *p = (hrace_peer_t){ .what = HRACE_BUF_PEER, .w = w, .world = w->world[r],
                         .base = (uintptr_t)ptr, .size = (uint64_t)size };
    pthread_mutex_lock(&mu);
    p->next = peers;
    peers = p;
    pthread_mutex_unlock(&mu);
    hrace__filter_add(p->base, p->base + p->size, HRACE_TRACK_BUFFER, p);
  }
}

/* Caller holds mu. Sends p's batch (no acknowledgement). */
static void send_batch(hrace_peer_t *p) {
  if (!p->npend) return;
  unsigned n = p->npend;
  uint64_t *ranges = malloc(2 * n * sizeof *ranges);
  hrace_fwd_meta_t *meta = malloc(n * sizeof *meta);
  size_t scap = 1024, slen = 0;
  char *strs = malloc(scap);
  const hrace_srcloc_t **seen = malloc(n * sizeof *seen);
  uint32_t *seen_at = malloc(n * sizeof *seen_at);
  unsigned nseen = 0;
  if (!ranges || !meta || !strs || !seen || !seen_at) abort();
  for (unsigned i = 0; i < n; i++) {
    const fwd_t *e = &p->pend[i];
    /* The access's site with its caller chain, as deep as the owner's report shows its own
     * side (stack_depth frames, inlined ones included); sites are interned: compare pointers. */
    const hrace_srcloc_t *site = hrace__site_here(e->stack, e->pc);
    uint32_t plen;
    const void *packed = hrace__site_pack(site, &plen);
    unsigned j = 0;
    while (j < nseen && seen[j] != site) j++;
    if (j == nseen) {
      while (slen + plen > scap) scap *= 2;
      if (!(strs = realloc(strs, scap))) abort();
      memcpy(strs + slen, packed, plen);
      seen[nseen] = site;
      seen_at[nseen++] = (uint32_t)slen;
      slen += plen;
    }
    ranges[2 * i] = e->off;
    ranges[2 * i + 1] = e->len;
    meta[i] = (hrace_fwd_meta_t){ .exporter = e->exporter, .epoch = e->epoch, .view = e->view,
                                  .thread = e->thread, .flags = e->flags, .op = e->op,
                                  .atomic_class = e->atomic_class, .site = seen_at[j],
                                  .site_len = plen };
  }
  uint32_t head[2] = { p->nviews, hrace__clock_len() };
  size_t vbytes = (size_t)head[0] * head[1] * sizeof(hrace_clk_t);
  size_t blen = sizeof head + vbytes + n * sizeof *meta + slen;
  char *blob = malloc(blen), *b = blob;
  if (!blob) abort();
  memcpy(b, head, sizeof head), b += sizeof head;
  memcpy(b, p->views, vbytes), b += vbytes;
  memcpy(b, meta, n * sizeof *meta), b += n * sizeof *meta;
  memcpy(b, strs, slen);
  hrace_msg_t h = { .type = HRACE_MSG_FWD, .win = p->w->id, .origin = hrace__proc.rank,
                    .thread = hrace__thread()->tid, .nranges = n, .blob_len = (uint32_t)blen,
                    .fgen = hrace__win_fgen(p->w) };
  hrace__ctl_send_blob(p->world, &h, ranges, NULL, NULL, NULL, blob);
  p->npend = 0;
  p->nviews = 0;
  free(ranges);
  free(meta);
  free(strs);
  free(seen);
  free(seen_at);
  free(blob);
}

/* Completions sent without waiting for their acknowledgement (hrace__shared_late_complete):
 * per world rank, 0 or the number of the last one, under mu. The publication hook pings each
 * such target before the clock leaves this process, and only then forgets the number it
 * pinged for (a later completion keeps its mark): a thread that publishes meanwhile pings too,
 * and no clock ordered after a completion leaves before the target applied it. */
static uint64_t *late;
static uint64_t late_seq;
static unsigned nlate;

static void update_pending(void) {
  int any = nlate != 0;
  for (hrace_peer_t *p = peers; p && !any; p = p->next) any = p->npend != 0;
  atomic_store_explicit(&hrace__fwd_pending, any, memory_order_relaxed);
}

uint64_t hrace__shared_late_complete(int target) {
  pthread_mutex_lock(&mu);
  if (!late && !(late = calloc((size_t)hrace__proc.size, sizeof *late))) abort();
  if (!late[target]) nlate++;
  uint64_t mark = late[target] = ++late_seq;
  atomic_store_explicit(&hrace__fwd_pending, 1, memory_order_relaxed);
  pthread_mutex_unlock(&mu);
  return mark;
}

/* Marks grow with the order of the sends, and one connection delivers in that order: the
 * target has applied every completion up to `mark`. */
void hrace__shared_late_applied(int target, uint64_t mark) {
  pthread_mutex_lock(&mu);
  if (late && late[target] && late[target] <= mark) {
    late[target] = 0;
    nlate--;
    update_pending();
  }
  pthread_mutex_unlock(&mu);
}

static __thread int pings_deferred;
void hrace__shared_defer_pings(int on) { pings_deferred = on; }

void hrace__shared_access(void *peer, uintptr_t addr, uintptr_t len, uint16_t flags, uint16_t op,
                          uint32_t atomic_class, uintptr_t pc) {
  hrace_peer_t *p = peer;
  /* Stamped with the thread's own clock entry (which makes it an exporter): any publication
   * that covers this access carries that entry's value, directly or through OpenMP joins. */
  fwd_t e = { .off = addr - p->base, .len = len, .exporter = hrace__thread_exporter(),
              .epoch = hrace__thread_epoch(), .thread = hrace__thread()->tid, .flags = flags,
              .op = op, .atomic_class = atomic_class, .pc = pc };
  const hrace_vc_t *g = hrace__thread_view();
  uint32_t vlen = hrace__clock_len();
  pthread_mutex_lock(&mu);
  if (!p->w) goto out;
  /* The thread's clock at the access, shared by the batch's entries that saw the same one. */
  e.view = UINT32_MAX;
  for (unsigned k = p->npend, seen = 0; k-- > 0 && seen < COALESCE_WINDOW; seen++)
    if (p->pend[k].thread == e.thread) {
      const hrace_clk_t *v = p->views + (size_t)p->pend[k].view * vlen;
      int same = 1;
      for (uint32_t i = 0; i < vlen && same; i++) same = v[i] == (i < g->n ? g->c[i] : 0);
      if (same) e.view = p->pend[k].view;
      break;
    }
  if (e.view == UINT32_MAX) {
    if (p->nviews == p->capviews) {
      p->capviews = p->capviews ? 2 * p->capviews : 8;
      if (!(p->views = realloc(p->views, (size_t)p->capviews * vlen * sizeof *p->views))) abort();
    }
    hrace_clk_t *v = p->views + (size_t)p->nviews * vlen;
    for (uint32_t i = 0; i < vlen; i++) v[i] = i < g->n ? g->c[i] : 0;
    e.view = p->nviews++;
  }
  /* A loop over an array is one entry: extend a recent entry of the same code address,
   * thread, kind and epoch that this access touches or adjoins. */
  for (unsigned k = p->npend, seen = 0; k-- > 0 && seen < COALESCE_WINDOW; seen++) {
    fwd_t *x = &p->pend[k];
    if (x->pc != pc || x->thread != e.thread || x->flags != flags || x->op != op ||
        x->epoch != e.epoch || x->view != e.view || x->atomic_class != atomic_class)
      continue;
    if (e.off > x->off + x->len || e.off + e.len < x->off) continue;
    uint64_t lo = e.off < x->off ? e.off : x->off;
    uint64_t hi = e.off + e.len > x->off + x->len ? e.off + e.len : x->off + x->len;
    x->off = lo;
    x->len = hi - lo;
    goto out;
  }
  if (p->npend == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 64;
    if (!(p->pend = realloc(p->pend, p->cap * sizeof *p->pend))) abort();
  }
  /* A new entry (not a loop's next element): its caller chain, interned once per entry. */
  e.stack = hrace__stack_capture_hook ? hrace__stack_capture_hook(pc) : 0;
  p->pend[p->npend++] = e;
  atomic_store_explicit(&hrace__fwd_pending, 1, memory_order_relaxed);
  if (p->npend >= BATCH_MAX) {
    /* The slow path runs inside the application's code: mark it as hrace's own while MPI
     * runs, so that nothing MPI does comes back here. */
    hrace_thread_t *t = hrace__thread();
    t->depth++;
    send_batch(p);
    t->depth--;
  }
out:
  pthread_mutex_unlock(&mu);
}

void hrace__shared_flush_to(int target) {
  if (!atomic_load_explicit(&hrace__fwd_pending, memory_order_relaxed)) return;
  pthread_mutex_lock(&mu);
  for (hrace_peer_t *p = peers; p; p = p->next)
    if (p->w && p->world == target) send_batch(p);
  update_pending();
  pthread_mutex_unlock(&mu);
}

/* core/hooks.h, hrace__fwd_flush_hook: before a clock that may cover the batches, or the
 * completions sent unacknowledged, is published. */
static void fwd_flush(int acked) {
  int *to = NULL, nto = 0;
  if (pings_deferred) acked = 0;
  uint64_t *seq = NULL;
  pthread_mutex_lock(&mu);
  for (hrace_peer_t *p = peers; p; p = p->next) {
    if (!p->w || !p->npend) continue;
    int seen = 0;
    for (int i = 0; i < nto; i++) seen |= to[i] == p->world;
    if (!seen) {
      if (!(to = realloc(to, (nto + 1) * sizeof *to))) abort();
      to[nto++] = p->world;
    }
    send_batch(p);
  }
  if (acked && nlate) {
    if (!(seq = calloc((size_t)nto + nlate, sizeof *seq))) abort();
    if (!(to = realloc(to, ((size_t)nto + nlate) * sizeof *to))) abort();
    for (int t = 0; t < hrace__proc.size; t++) {
      if (!late[t]) continue;
      int i = 0;
      while (i < nto && to[i] != t) i++;
      if (i == nto) to[nto++] = t;
      seq[i] = late[t];
    }
  }
  update_pending();
  pthread_mutex_unlock(&mu);
  if (acked)
    for (int i = 0; i < nto; i++) hrace__ctl_ping(to[i]);
  if (seq) {                     /* applied there now: forget what the pings covered */
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nto; i++)
      if (seq[i] && late[to[i]] == seq[i]) {
        late[to[i]] = 0;
        nlate--;
      }
    update_pending();
    pthread_mutex_unlock(&mu);
  }
  free(seq);
  free(to);
}

__attribute__((constructor)) static void register_flush(void) { hrace__fwd_flush_hook = fwd_flush; }

void hrace__shared_unregister(hrace_win_t *w) {
  pthread_mutex_lock(&mu);
  for (hrace_peer_t *p = peers; p; p = p->next)
    if (p->w == w) {
      send_batch(p);
      p->w = NULL;
    }
  update_pending();
  pthread_mutex_unlock(&mu);
  for (hrace_peer_t *p = peers; p; p = p->next)
    if (!p->w) hrace__filter_remove(p);
}

/* ---- owner side (progress thread) ----------------------------------------------------- */

/* Descriptors of forwarded accesses, reused for the same (origin, thread, site, kind, epoch)
 * the way a thread reuses its own per segment (hrace__local_access). Progress thread only. */
#define DCACHE 256
static struct dkey {
  int origin, thread;
  uint32_t exporter;
  hrace_clk_t epoch;
  uint16_t flags, op;
  uint32_t atomic_class;
  const void *loc;
  hrace_aid_t aid;
} dcache[DCACHE];

static hrace_aid_t descriptor(int origin, const hrace_fwd_meta_t *m, const void *loc) {
  uint64_t h = hrace_hash_combine((uintptr_t)loc, (uint64_t)origin << 32 | (uint32_t)m->thread);
  h = hrace_hash_combine(h, (uint64_t)m->epoch << 16 | m->flags);
  struct dkey *k = &dcache[h % DCACHE];
  if (k->aid && k->origin == origin && k->thread == m->thread && k->exporter == m->exporter &&
      k->epoch == m->epoch && k->flags == m->flags && k->op == m->op &&
      k->atomic_class == m->atomic_class && k->loc == loc)
    return k->aid;
  hrace_access_t a = {
    .exporter = m->exporter, .flags = (uint16_t)(m->flags | HRACE_ACC_FOREIGN), .op = m->op,
    .atomic_class = m->atomic_class, .rank = origin, .thread = m->thread, .loc = loc,
  };
  atomic_init(&a.clk, m->epoch);
  *k = (struct dkey){ origin, m->thread, m->exporter, m->epoch, m->flags, m->op,
                      m->atomic_class, loc, hrace__access_new(&a) };
  return k->aid;
}

void hrace__shared_mark(void) {
  for (unsigned i = 0; i < DCACHE; i++) hrace__access_mark(dcache[i].aid);
}

void hrace__shared_apply(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                         const hrace_clk_t *vc, const char *blob) {
  (void)vc;
  uint32_t head[2];
  if (h->blob_len < sizeof head) return;
  memcpy(head, blob, sizeof head);
  size_t vbytes = (size_t)head[0] * head[1] * sizeof(hrace_clk_t);
  size_t mbytes = (size_t)h->nranges * sizeof(hrace_fwd_meta_t);
  if (h->blob_len < sizeof head + vbytes + mbytes) return;
  const hrace_clk_t *views = (const hrace_clk_t *)(blob + sizeof head);
  const hrace_fwd_meta_t *meta = (const hrace_fwd_meta_t *)(blob + sizeof head + vbytes);
  const char *sites = blob + sizeof head + vbytes + mbytes;
  size_t slen = h->blob_len - (sizeof head + vbytes + mbytes);
  for (uint32_t i = 0; i < h->nranges; i++) {
    const hrace_fwd_meta_t *m = &meta[i];
    if (m->site > slen || m->site_len > slen - m->site || m->view >= head[0]) continue;
    /* Interned: the batch's entries from one site get the same pointer (and descriptor). */
    const void *loc = hrace__site_unpack(sites + m->site, m->site_len);
    if (!loc) continue;
    /* Checked as seen from the accessing thread at the time of the access: its global
     * clock, no local part (this is another process). */
    hrace_vc_t view = { .n = head[1], .c = (hrace_clk_t *)(views + (size_t)m->view * head[1]) };
    hrace__shadow_access(&w->cells, ranges[2 * i], ranges[2 * i + 1], descriptor(h->origin, m, loc),
                         &view, hrace__race_sink, &w->cells);
  }
}
