/* Exporter registry and snapshot histories (see exporter.h).
 *
 * Each exporter's history is appended only by its own thread (on a slot shared by several
 * threads, by each of them under the mutex: append_shared) and read by any thread (the
 * progress thread judging a record, a thread receiving a message) under the exporter's mutex;
 * both happen at MPI calls, never per load or store.
 *
 * Histories are run-length compressed. Between two publications with nothing else happening
 * locally, the publishing context's own entry grows by exactly one (runtime.c ticks it at each
 * publication) and nothing else changes; such a publication is implied by the entry before it:
 *     entry (k0, own, own0, L)  stands for  (k, L with L[own] = own0 + (k - k0))
 * for every k from k0 up to the next entry. So an MPI-only phase (a ping-pong loop, a solver's
 * halo exchanges) costs one entry and no lock, however many messages it sends; a new entry
 * appears only when OpenMP synchronisation or a returning clock changed the local part. */
#include "clocks/exporter.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct snap {
  hrace_clk_t k;            /* the exporter's entry when it published (first of the run) */
  uint32_t own;             /* the publishing context's local entry */
  hrace_clk_t own0;         /* l[own] at k; l[own] at k + i is own0 + i within the run */
  uint32_t n;               /* entries of l */
  const hrace_clk_t *l;     /* local clock then (l[own] is taken from own0, not from here) */
} snap_t;

typedef struct exporter {
  _Atomic int tid;          /* local thread holding it; -1: never used; -2: released (read
                             * without assign_mu by the fast path of hrace__exporter_of) */
  pthread_mutex_t mu;
  snap_t *h;
  unsigned nh, caph;
  /* Released (tid -2, under assign_mu): the value its next publication must have at least,
   * and the releasing context's local entry and time, which a taker must be ordered after. */
  hrace_clk_t next, rel_time;
  uint32_t rel_idx;
  /* The latest publication on the slot (under mu), kept for the last slot of a process whose
   * threads may all call MPI (lockstep): a thread that starts sharing the slot numbers its
   * publications after it and joins the knowledge its run implies there. */
  hrace_clk_t last_k;
} exporter_t;

#define MAX_SLOTS 64
static int my_rank = 0, nprocs = 1, nslots = 1;
static bool multi;   /* threads other than the first may call MPI (exporter.h) */
static exporter_t ex[MAX_SLOTS];
static _Atomic int used_slots;
static pthread_mutex_t assign_mu = PTHREAD_MUTEX_INITIALIZER;
static int warned;
_Atomic unsigned hrace__exporters_gen;   /* init calls and slots becoming shared */
static _Atomic bool shared[MAX_SLOTS];   /* used by more than one thread */

void hrace__exporters_init(int rank, int np, int slots, bool threads) {
  my_rank = rank;
  multi = threads;
  nprocs = np > 0 ? np : 1;
  nslots = slots < 1 ? 1 : slots > MAX_SLOTS ? MAX_SLOTS : slots;
  for (int i = 0; i < MAX_SLOTS; i++) {
    if (!ex[i].h) pthread_mutex_init(&ex[i].mu, NULL);
    if (i >= atomic_load(&used_slots)) {
      ex[i].tid = -1;
      ex[i].last_k = 0;
      atomic_store(&shared[i], false);
    }
  }
  atomic_fetch_add(&hrace__exporters_gen, 1);
}

uint32_t hrace__exporters_len(void) { return (uint32_t)(nprocs * nslots); }

static uint32_t index_of(int slot) { return (uint32_t)(my_rank + nprocs * slot); }

/* A released slot may be taken by a thread whose local clock knows the release: everything
 * its holder did (publications, completions stamped with its next value) happened before the
 * taker, so the slot's history stays a chain and nothing is over-approximated. */
static bool takeable(const exporter_t *x, int s, const hrace_vc_t *l) {
  return x->tid == -2 && !atomic_load(&shared[s]) && x->rel_idx < l->n &&
         l->c[x->rel_idx] >= x->rel_time;
}

uint32_t hrace__exporter_of(int tid, const hrace_vc_t *l, hrace_clk_t *published) {
  int n = atomic_load_explicit(&used_slots, memory_order_acquire);
  for (int s = 0; s < n; s++)
    if (ex[s].tid == tid) return index_of(s);
  pthread_mutex_lock(&assign_mu);
  n = atomic_load(&used_slots);
  int s;
  for (s = 0; s < n; s++)
    if (ex[s].tid == tid) break;
  if (s == n)
    for (s = 0; s < n; s++)
      if (takeable(&ex[s], s, l)) {
        ex[s].tid = tid;
        if (*published < ex[s].next) *published = ex[s].next;
        break;
      }
  if (s == n) {
    if (n < nslots) {
      ex[n].tid = tid;
      atomic_store_explicit(&used_slots, n + 1, memory_order_release);
    } else {
      s = nslots - 1;
      if (!atomic_load(&shared[s])) {
        atomic_store(&shared[s], true);
        atomic_fetch_add(&hrace__exporters_gen, 1);
      }
      if (!warned) {
        warned = 1;
        fprintf(stderr, "hrace: rank %d: warning: more than %d threads make MPI calls with no "
                "OpenMP barrier between them; the later ones share one clock entry, so hrace may "
                "miss races between them (raise HRACE_OPTIONS=exporters=N)\n", my_rank, nslots);
      }
    }
  }
  pthread_mutex_unlock(&assign_mu);
  return index_of(s);
}

static exporter_t *own_exporter(uint32_t e) {
  if (e % (uint32_t)nprocs != (uint32_t)my_rank) return NULL;
  uint32_t s = e / (uint32_t)nprocs;
  return s < (uint32_t)nslots ? &ex[s] : NULL;
}

void hrace__exporter_release(uint32_t e, hrace_clk_t next, uint32_t idx, hrace_clk_t time) {
  exporter_t *x = own_exporter(e);
  if (!x) return;
  pthread_mutex_lock(&assign_mu);
  if (!atomic_load(&shared[x - ex])) {
    x->next = next, x->rel_idx = idx, x->rel_time = time;
    x->tid = -2;
  }
  pthread_mutex_unlock(&assign_mu);
}

/* own_exporter of the calling thread's last snapshot, without its division (a snapshot per
 * send and per receive post). Valid while hrace__exporters_gen is unchanged: hrace__exporters_init
 * renumbers entries. */
static __thread struct { uint32_t e; unsigned gen; exporter_t *x; } last_own
    __attribute__((tls_model("initial-exec")));

static exporter_t *own_exporter_cached(uint32_t e) {
  unsigned g = atomic_load_explicit(&hrace__exporters_gen, memory_order_relaxed) + 1;
  if (__builtin_expect(last_own.gen == g && last_own.e == e, 1)) return last_own.x;
  exporter_t *x = own_exporter(e);
  last_own.e = e, last_own.gen = g, last_own.x = x;
  return x;
}

/* Is (k, l, own) implied by run entry r? A loop, not memcmp: l has a handful of entries. */
static bool in_run(const snap_t *r, hrace_clk_t k, const hrace_vc_t *l, uint32_t own) {
  if (r->own != own || r->n != l->n || own >= l->n) return false;
  if (l->c[own] != r->own0 + (k - r->k)) return false;
  for (uint32_t i = 0; i < l->n; i++)
    if (i != own && r->l[i] != l->c[i]) return false;
  return true;
}

/* Add s to x's history; the caller holds x->mu. */
static void push(exporter_t *x, snap_t s) {
  if (x->nh == x->caph) {
    x->caph = x->caph ? 2 * x->caph : 16;
    x->h = realloc(x->h, x->caph * sizeof *x->h);
    if (!x->h) abort();
  }
  x->h[x->nh++] = s;
}

static snap_t snap_copy(hrace_clk_t k, const hrace_vc_t *l, uint32_t own) {
  hrace_clk_t *c = malloc((l->n ? l->n : 1) * sizeof *c);
  if (!c) abort();
  if (l->n) memcpy(c, l->c, l->n * sizeof *c);
  return (snap_t){ k, own, own < l->n ? l->c[own] : 0, l->n, c };
}

static __attribute__((noinline)) void append(exporter_t *x, hrace_clk_t k, const hrace_vc_t *l,
                                             uint32_t own) {
  snap_t s = snap_copy(k, l, own);
  pthread_mutex_lock(&x->mu);
  push(x, s);
  pthread_mutex_unlock(&x->mu);
}

static hrace_clk_t snap_at(const snap_t *s, hrace_clk_t k, uint32_t i);

/* A publication on a shared slot (the caller holds x->mu): threads that share an entry number
 * their publications in one sequence (each thread's own count may lag behind the others'), so k
 * is raised above the slot's latest publication; and each snapshot joins the knowledge the slot
 * had there, since a receiver's clock keeps only the largest value it heard on the entry: the
 * snapshot at that value must cover what every earlier publication on the entry covered.
 * Otherwise a receiver that heard thread A's publication and then thread B's later one would
 * lose A's knowledge and report A's accesses as unordered (a false race;
 * hyb_tail_threads_norace with fewer slots than threads). The latest publication may lie past
 * the last entry, in its run: x->last_k says where (lockstep slots), and the run's knowledge
 * there is joined. The join over-approximates, which is what sharing a slot means (exporter.h).
 * Returns k as published. */
static __attribute__((noinline, cold)) hrace_clk_t append_shared(exporter_t *x, hrace_clk_t k,
                                                                  const hrace_vc_t *l, uint32_t own) {
  const snap_t *p = x->nh ? &x->h[x->nh - 1] : NULL;
  hrace_clk_t at = p ? p->k : 0;
  if (p && x->last_k > at) at = x->last_k;
  if (p && k <= at) k = at + 1;
  uint32_t n = l->n;
  if (p && p->n > n) n = p->n;
  if (p && p->own + 1 > n) n = p->own + 1;
  if (own + 1 > n) n = own + 1;
  hrace_clk_t *c = calloc(n, sizeof *c);
  if (!c) abort();
  for (uint32_t i = 0; i < n; i++) {
    hrace_clk_t a = i < l->n ? l->c[i] : 0, b = p ? snap_at(p, at, i) : 0;
    c[i] = a > b ? a : b;
  }
  push(x, (snap_t){ k, own, c[own], n, c });
  return k;
}

/* A publication on a lockstep slot: the last slot of a process whose threads may all call MPI,
 * the one a thread shares when it finds every slot held (hrace__exporter_of). Its owner records
 * every publication under the mutex, run or not, so the moment the slot becomes shared cannot
 * fall between the owner's look at `shared` and its publication: a sharer's append_shared takes
 * the same mutex, and either sees the owner's publication in last_k (and numbers its own after
 * it) or comes first, and then the owner sees `shared` and appends a shared snapshot itself.
 * (With a lock-free run the sharer numbered its publication inside the owner's run and hid its
 * later publications' knowledge: case-shared-slot/hyb_tail_threads_norace, a false race in 1 of
 * ~14 runs on MPICH; tests/unit/test_clock_exporter.c.) Costs a lock per publication of the
 * thread holding the last slot only. */
static hrace_clk_t append_lockstep(exporter_t *x, hrace_clk_t k, const hrace_vc_t *l,
                                   uint32_t own) {
  pthread_mutex_lock(&x->mu);
  if (atomic_load_explicit(&shared[x - ex], memory_order_relaxed))
    k = append_shared(x, k, l, own);
  else if (!(x->nh && k >= x->h[x->nh - 1].k && in_run(&x->h[x->nh - 1], k, l, own)))
    push(x, snap_copy(k, l, own));
  if (k > x->last_k) x->last_k = k;
  pthread_mutex_unlock(&x->mu);
  return k;
}

bool hrace__exporter_snapshot(uint32_t e, hrace_clk_t *k, const hrace_vc_t *l, uint32_t own) {
  exporter_t *x = own_exporter_cached(e);
  if (!x) return false;
  if (multi && x == &ex[nslots - 1]) {
    *k = append_lockstep(x, *k, l, own);
    return false;
  }
  if (atomic_load_explicit(&shared[x - ex], memory_order_acquire)) {
    pthread_mutex_lock(&x->mu);
    *k = append_shared(x, *k, l, own);
    pthread_mutex_unlock(&x->mu);
    return false;
  }
  /* Only this thread appends, so it may read its last entry without the lock. */
  if (x->nh && *k >= x->h[x->nh - 1].k && in_run(&x->h[x->nh - 1], *k, l, own)) return true;
  append(x, *k, l, own);
  return true;
}

/* Entry `i` of snapshot s (the one at or below k). */
static hrace_clk_t snap_at(const snap_t *s, hrace_clk_t k, uint32_t i) {
  if (i == s->own) return s->own0 + (k - s->k);
  return i < s->n ? s->l[i] : 0;
}

/* The latest snapshot of x at or below k (caller holds x->mu), or NULL. Entries grow with the
 * history, so binary search. */
static const snap_t *at_or_below(const exporter_t *x, hrace_clk_t k) {
  unsigned lo = 0, hi = x->nh;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (x->h[mid].k <= k) lo = mid + 1;
    else hi = mid;
  }
  return lo ? &x->h[lo - 1] : NULL;
}

bool hrace__exporters_cover(uint32_t tid, hrace_clk_t c, const hrace_vc_t *g) {
  int n = atomic_load_explicit(&used_slots, memory_order_acquire);
  for (int s = 0; s < n; s++) {
    uint32_t e = index_of(s);
    if (e >= g->n || !g->c[e]) continue;
    exporter_t *x = &ex[s];
    pthread_mutex_lock(&x->mu);
    const snap_t *sn = at_or_below(x, g->c[e]);
    bool hit = sn && c <= snap_at(sn, g->c[e], tid);
    pthread_mutex_unlock(&x->mu);
    if (hit) return true;
  }
  return false;
}

bool hrace__exporters_recall(const hrace_vc_t *g, const hrace_vc_t *known, hrace_vc_t *l) {
  bool changed = false;
  int n = atomic_load_explicit(&used_slots, memory_order_acquire);
  for (int s = 0; s < n; s++) {
    uint32_t e = index_of(s);
    if (e >= g->n || !g->c[e]) continue;
    if (e < known->n && g->c[e] <= known->c[e]) continue;   /* nothing new: see exporter.h */
    exporter_t *x = &ex[s];
    pthread_mutex_lock(&x->mu);
    const snap_t *sn = at_or_below(x, g->c[e]);
    if (sn) {
      changed = true;
      hrace__vc_join_raw(l, sn->l, sn->n);
      hrace_clk_t o = snap_at(sn, g->c[e], sn->own);
      hrace__vc_grow(l, sn->own + 1);
      if (sn->own < l->n && o > l->c[sn->own]) l->c[sn->own] = o;
    }
    pthread_mutex_unlock(&x->mu);
  }
  return changed;
}
