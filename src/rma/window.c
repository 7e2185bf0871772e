/* The window registry (see window.h). Windows are few and change rarely: one mutex guards the
 * registry, and the progress thread holds it while it applies a message, so a window cannot be
 * freed under a record being applied. The same mutex, with one condition variable, lets an
 * application thread wait for a deposit the progress thread makes (a PSCW post or complete, a
 * process signal). */
#include "rma/window.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "access/filter.h"
#include "access/full.h"
#include "access/history.h"
#include "access/sweep.h"
#include "base/log.h"
#include "core/chan.h"
#include "core/hooks.h"
#include "core/proc.h"
#include "core/thread.h"
#include "mpi/sync.h"
#include "rma/buffers.h"
#include "rma/shared.h"

enum { HRACE_CONNECT_EAGER = 64 };   /* members a window connects at its creation, at most */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;
static hrace_win_t **wins;
static unsigned nwins, capwins;
static uint32_t next_id = 1;

void hrace__win_lock(void) { pthread_mutex_lock(&mu); }
void hrace__win_unlock(void) { pthread_mutex_unlock(&mu); }

static void cv_init(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&cv, &a);
  pthread_condattr_destroy(&a);
}

int hrace__win_wait(long ms) {
  pthread_once(&cv_once, cv_init);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  return pthread_cond_timedwait(&cv, &mu, &ts);
}

void hrace__win_broadcast(void) {
  pthread_once(&cv_once, cv_init);
  pthread_cond_broadcast(&cv);
}

static void *xcalloc(size_t n, size_t s) {
  void *p = calloc(n ? n : 1, s);
  if (!p) abort();
  return p;
}

/* A segment: memory, shadow, and the filter range that routes loads and stores to it. */
static void segment_init(hrace_win_t *s, void *base, uint64_t size) {
  s->base = base;
  s->size = size;
  if (hrace__shadow_init_spans(&s->cells, size))
    hrace__fatal("cannot map %llu bytes of shadow for a window", (unsigned long long)size);
  if (size) hrace__filter_add((uintptr_t)base, (uintptr_t)base + size, HRACE_TRACK_WINDOW, &s->cells);
}

/* The application's call that makes the next window or region on this thread (reports name it). */
static __thread uintptr_t next_site;
void hrace__win_site(uintptr_t pc) { next_site = pc; }

hrace_win_t *hrace__win_register(MPI_Win win, MPI_Comm comm, int kind, void *base,
                                 MPI_Aint size, int disp_unit) {
  hrace_win_t *w = xcalloc(1, sizeof *w);
  w->site = next_site;
  next_site = 0;
  w->win = win;
  w->kind = kind;
  w->disp_unit = kind == HRACE_WIN_DYNAMIC ? 1 : disp_unit;
  pthread_mutex_init(&w->omu, NULL);
  PMPI_Comm_size(comm, &w->gsize);
  PMPI_Comm_rank(comm, &w->grank);
  w->world = xcalloc(w->gsize, sizeof *w->world);
  int *idx = xcalloc(w->gsize, sizeof *idx);
  for (int i = 0; i < w->gsize; i++) idx[i] = i;
  MPI_Group g, wg;
  PMPI_Comm_group(comm, &g);
  PMPI_Comm_group(MPI_COMM_WORLD, &wg);
  PMPI_Group_translate_ranks(g, w->gsize, idx, wg, w->world);
  w->group = g;   /* kept: PSCW groups translate to it (hrace__win_group_flags) */
  PMPI_Group_free(&wg);
  free(idx);
  /* A small window's members open their connections to each other now, while the collectives
   * below run: the first lock of an epoch found none and waited for both ends' progress
   * threads to accept one (0.1-3 ms on a loaded machine, more than 100 000 gets take;
   * docs/rma.md, "Synchronisation"). A large group connects as its epochs need it. */
  if (w->gsize <= HRACE_CONNECT_EAGER)
    for (int i = 0; i < w->gsize; i++) hrace__chan_connect(w->world[i]);
  w->lock = xcalloc(w->gsize, 1);
  w->dirty = xcalloc(w->gsize, 1);
  w->start_group = xcalloc(w->gsize, 1);
  w->post_group = xcalloc(w->gsize, 1);
  w->dones = xcalloc(w->gsize, sizeof *w->dones);
  w->posts = xcalloc(w->gsize, sizeof *w->posts);
  w->post_ack = xcalloc(w->gsize, sizeof *w->post_ack);
  uint32_t n = hrace__clock_len();
  hrace__vc_init(&w->rel_excl, n);
  hrace__vc_init(&w->rel_all, n);
  hrace__vc_init(&w->done_vc, n);
  hrace__vc_init(&w->fence_vc, n);
  w->fence_dt = MPI_DATATYPE_NULL;
  w->post_vcs = xcalloc(w->gsize, sizeof *w->post_vcs);
  PMPI_Comm_dup(comm, &w->shadow);

  /* Every member's extent, so that an origin can check its own target ranges (and name the
   * line of the offending call) before MPI sees them. */
  uint64_t mine[2] = { kind == HRACE_WIN_DYNAMIC || size < 0 ? 0 : (uint64_t)size,
                       (uint64_t)(unsigned)w->disp_unit };
  uint64_t *all = xcalloc(2 * (size_t)w->gsize, sizeof *all);
  PMPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, w->shadow);
  w->sizes = xcalloc(w->gsize, sizeof *w->sizes);
  w->disp_units = xcalloc(w->gsize, sizeof *w->disp_units);
  for (int i = 0; i < w->gsize; i++) w->sizes[i] = all[2 * i], w->disp_units[i] = (int)all[2 * i + 1];
  free(all);

  /* An id that is new at every member: the maximum of their next ids. The window is complete
   * and in the registry before the all-to-all clock exchange below (window creation orders
   * every member after every other: docs/rma.md, "Windows"), so no record can arrive for an
   * unknown window. */
  uint32_t id = hrace__win_propose_id();
  PMPI_Allreduce(MPI_IN_PLACE, &id, 1, MPI_UINT32_T, MPI_MAX, w->shadow);
  w->id = id;
  snprintf(w->name, sizeof w->name, "win%u", id);
  if (kind == HRACE_WIN_DYNAMIC) hrace__shadow_init(&w->cells, 0);
  else segment_init(w, base, mine[0]);
  if (kind == HRACE_WIN_SHARED) hrace__shared_register(w);

  hrace__win_insert(w);
  hrace__sync_all(w->shadow, NULL, 0, hrace__win_creator(kind));
  return w;
}

uint32_t hrace__win_propose_id(void) {
  pthread_mutex_lock(&mu);
  uint32_t id = next_id;
  pthread_mutex_unlock(&mu);
  return id;
}

void hrace__win_insert(hrace_win_t *w) {
  pthread_mutex_lock(&mu);
  if (w->id >= next_id) next_id = w->id + 1;
  if (nwins == capwins) {
    capwins = capwins ? 2 * capwins : 8;
    wins = realloc(wins, capwins * sizeof *wins);
    if (!wins) abort();
  }
  wins[nwins++] = w;
  pthread_mutex_unlock(&mu);
}

const char *hrace__win_creator(int kind) {
  return kind == HRACE_WIN_ALLOCATE ? "MPI_Win_allocate"
         : kind == HRACE_WIN_SHARED ? "MPI_Win_allocate_shared"
         : kind == HRACE_WIN_DYNAMIC ? "MPI_Win_create_dynamic"
                                     : "MPI_Win_create";
}

/* core/hooks.h, hrace__segment_label_hook: what a report says about a segment's memory. */
static void segment_label(const hrace_shadow_t *cells, hrace_segment_label_t *out) {
  const hrace_win_t *s = hrace__win_of_cells(cells);
  out->window = s->name;
  out->base = (uintptr_t)s->base;
  out->size = s->size;
  /* memory of a dynamic window comes from the application and is attached */
  out->allocation = s->kind == HRACE_WIN_DYNAMIC ? "MPI_Win_attach" : hrace__win_creator(s->kind);
  out->alloc_pc = s->site;
  out->window_call = hrace__win_creator(s->kind);
  out->window_pc = s->parent ? s->parent->site : s->site;
}
__attribute__((constructor)) static void register_label(void) {
  hrace__segment_label_hook = segment_label;
}

static hrace_win_t *detached;   /* regions detached from dynamic windows (hrace__win_detach) */

/* The descriptor sweep (clocks/access.h; docs/access.md, "Reclaiming descriptors"), run by an
 * application thread at the start of an RMA call, or in an OpenMP barrier (sweep_point), once
 * enough descriptors were made. Every id
 * is held by one of: a shadow (a window segment's, full mode's chunks; cells and read sets), a
 * pending operation record (w->pending), a forwarded access's descriptor cache (shared.c), a
 * history table, a thread's caches (access/sweep.c), or an operation in flight at its origin
 * (rma/buffers.c; epoch HRACE_CLK_INF, never freed). The walk sees all of them only when
 * nothing else can store or take an id meanwhile, the safe point:
 *   - the progress thread is out: it applies messages (and makes descriptors) under the
 *     registry lock, which the caller holds;
 *   - no other thread is inside an MPI call: every thread registers at its first one
 *     (access/sweep.h), so one inside a call is running and the next point fails;
 *   - every other thread that runs instrumented code is parked (clocks/access.h: waiting in an
 *     OpenMP barrier) or gone, and stays so until the end;
 *   - no signal handler of the caller's runs instrumented code in the middle: blocked.
 * Elsewhere nothing is swept this time, and descriptors accumulate until a later call finds the
 * safe point. */
static void sweep_locked(void) {
  if (!hrace__sweep_may_run() || !hrace__access_stop_others())
    return;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  {
    if (hrace__access_sweep_begin()) {
      hrace__shadow_sweep_begin();
      for (unsigned i = 0; i < nwins; i++) {
        hrace_win_t *w = wins[i];
        hrace__shadow_mark(&w->cells);
        for (hrace_win_t *r = w->regions; r; r = r->next) hrace__shadow_mark(&r->cells);
        for (unsigned k = 0; k < w->npending; k++) hrace__access_mark(w->pending[k].aid);
      }
      for (hrace_win_t *r = detached; r; r = r->next) hrace__shadow_mark(&r->cells);
      if (atomic_load_explicit(&hrace__full_active, memory_order_acquire)) hrace__full_mark();
      hrace__shared_mark();
      hrace__history_mark();
      hrace__sweep_mark_threads();
      hrace__shadow_sweep_end();
      hrace__access_sweep_end();
    }
  }
  hrace__access_resume();   /* before a pending signal's handler runs */
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* A sweep point outside RMA calls (clocks/access.h): never waits for the progress thread. */
static void sweep_point(void) {
  if (pthread_mutex_trylock(&mu)) return;
  if (hrace__access_sweep_due()) sweep_locked();
  pthread_mutex_unlock(&mu);
}
__attribute__((constructor)) static void register_sweeper(void) { hrace__access_sweeper = sweep_point; }

hrace_win_t *hrace__win_of(MPI_Win win) {
  hrace_win_t *w = NULL;
  pthread_mutex_lock(&mu);
  /* Every RMA call of the application looks its window up here first: the sweep's safe point. */
  if (hrace__access_sweep_due()) sweep_locked();
  for (unsigned i = 0; i < nwins; i++)
    if (wins[i]->win == win) { w = wins[i]; break; }
  pthread_mutex_unlock(&mu);
  return w;
}

/* Caller holds the registry lock (the progress thread does, around each message). */
hrace_win_t *hrace__win_by_id(uint32_t id) {
  for (unsigned i = 0; i < nwins; i++)
    if (wins[i]->id == id) return wins[i];
  return NULL;
}

hrace_win_t *hrace__win_segment(hrace_win_t *w, uint64_t off, uint64_t len, uint64_t *rel) {
  if (w->kind != HRACE_WIN_DYNAMIC) {
    *rel = off;
    return off <= w->size && len <= w->size - off ? w : NULL;
  }
  for (hrace_win_t *r = w->regions; r; r = r->next) {
    uint64_t lo = (uint64_t)(uintptr_t)r->base;
    if (off >= lo && off - lo <= r->size && len <= r->size - (off - lo)) {
      *rel = off - lo;
      return r;
    }
  }
  return NULL;
}

void hrace__win_set_name(hrace_win_t *w, const char *name) {
  pthread_mutex_lock(&mu);
  snprintf(w->name, sizeof w->name, "%s", name);
  for (hrace_win_t *r = w->regions; r; r = r->next) snprintf(r->name, sizeof r->name, "%s", name);
  pthread_mutex_unlock(&mu);
}

/* A region of a dynamic window is a segment of its own (window.h). Attach and detach are local
 * calls (MPI-3.1 Sec. 11.2.4): no clock exchange; remote accesses to the region need the
 * synchronisation by which its address reached the origin anyway. */
void hrace__win_attach(hrace_win_t *w, void *base, MPI_Aint size) {
  if (size <= 0) return;
  hrace_win_t *r = xcalloc(1, sizeof *r);
  r->site = next_site;
  next_site = 0;
  r->win = w->win;
  r->id = w->id;
  r->kind = w->kind;
  r->parent = w;
  r->disp_unit = 1;
  r->gsize = w->gsize;
  r->grank = w->grank;
  segment_init(r, base, (uint64_t)size);
  pthread_mutex_lock(&mu);
  memcpy(r->name, w->name, sizeof r->name);
  r->next = w->regions;
  w->regions = r;
  pthread_mutex_unlock(&mu);
}

/* Detached regions keep their shadow mapping until the window is freed: a thread in the access
 * slow path may still hold the filter entry that points at it. Their shadow is forgotten. */

int hrace__win_detach(hrace_win_t *w, const void *base) {
  pthread_mutex_lock(&mu);
  hrace_win_t **p = &w->regions;
  while (*p && (*p)->base != base) p = &(*p)->next;
  hrace_win_t *r = *p;
  if (r) *p = r->next;
  pthread_mutex_unlock(&mu);
  if (!r) return -1;
  hrace__filter_remove(&r->cells);
  pthread_mutex_lock(&mu);
  hrace__shadow_clear(&r->cells, 0, r->size);
  r->next = detached;
  detached = r;
  pthread_mutex_unlock(&mu);
  return 0;
}

int hrace__win_group_rank(const hrace_win_t *w, int world) {
  for (int i = 0; i < w->gsize; i++)
    if (w->world[i] == world) return i;
  return -1;
}

/* Called by every MPI_Win_post and MPI_Win_start: one translation into the window's group,
 * which gives the flags' indices directly (the world's group and a search per member cost
 * as much again as the real call, bench/README.md "Session 11: short epochs"). */
int hrace__win_group_flags(const hrace_win_t *w, MPI_Group g, uint8_t *flags, int *bad) {
  int n = 0;
  memset(flags, 0, (size_t)w->gsize);
  if (PMPI_Group_size(g, &n) != MPI_SUCCESS) return -1;
  int small[2][16], *idx = small[0], *gr = small[1];
  if (n > 16) idx = xcalloc(n, sizeof *idx), gr = xcalloc(n, sizeof *gr);
  for (int i = 0; i < n; i++) idx[i] = i;
  int rc = n;
  if (n && PMPI_Group_translate_ranks(g, n, idx, w->group, gr) != MPI_SUCCESS) rc = -1;
  for (int i = 0; i < n && rc >= 0; i++) {
    if (gr[i] < 0 || gr[i] >= w->gsize) {   /* MPI_UNDEFINED: not in the window's group */
      if (bad) *bad = i;
      rc = -1;
      break;
    }
    flags[gr[i]] = 1;
  }
  if (idx != small[0]) free(idx), free(gr);
  return rc;
}

static void segment_free(hrace_win_t *s) {
  hrace__shadow_free(&s->cells);
  free(s);
}

void hrace__win_remove(hrace_win_t *w) {
  hrace__filter_remove(&w->cells);
  for (hrace_win_t *r = w->regions; r; r = r->next) hrace__filter_remove(&r->cells);
  pthread_mutex_lock(&mu);
  for (unsigned i = 0; i < nwins; i++)
    if (wins[i] == w) { wins[i] = wins[--nwins]; break; }
  hrace_win_t *regions = w->regions, *dead = NULL, **p = &detached;
  while (*p) {
    if ((*p)->parent == w) { hrace_win_t *r = *p; *p = r->next; r->next = dead; dead = r; }
    else p = &(*p)->next;
  }
  w->regions = NULL;
  pthread_mutex_unlock(&mu);
  for (hrace_win_t *r = regions, *nx; r; r = nx) nx = r->next, segment_free(r);
  for (hrace_win_t *r = dead, *nx; r; r = nx) nx = r->next, segment_free(r);
}

void hrace__win_unregister(hrace_win_t *w) {
  hrace__sync_all(w->shadow, NULL, 0, "MPI_Win_free");
  hrace__buffers_window_gone(w);
  hrace__shared_unregister(w);
  hrace__win_remove(w);
  for (hrace_resource_t *r = w->resources, *nx; r; r = nx) {
    nx = r->next;
    hrace__vc_free(&r->vc);
    free(r);
  }
  PMPI_Comm_free(&w->shadow);
  PMPI_Group_free(&w->group);
  hrace__shadow_free(&w->cells);
  hrace__vc_free(&w->rel_excl);
  hrace__vc_free(&w->rel_all);
  hrace__vc_free(&w->done_vc);
  hrace__vc_free(&w->fence_vc);
  if (w->fence_dt != MPI_DATATYPE_NULL) PMPI_Type_free(&w->fence_dt);
  for (int i = 0; i < w->gsize; i++) hrace__vc_free(&w->post_vcs[i]);
  free(w->post_vcs);
  pthread_mutex_destroy(&w->omu);
  free(w->world);
  free(w->lock);
  free(w->dirty);
  free(w->start_group);
  free(w->post_group);
  free(w->dones);
  free(w->posts);
  free(w->post_ack);
  free(w->sizes);
  free(w->disp_units);
  free(w->waiters);
  free(w->pending);
  hrace_map_free(&w->merge);
  free(w);
}
