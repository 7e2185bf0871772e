/* The request-state table (see reqtab.h): a base/map.h map under a mutex, skipped entirely
 * (one relaxed load) while no state is live. Only application threads touch it, inside MPI
 * calls (never hrace's own threads), so below MPI_THREAD_MULTIPLE the mutex is skipped too:
 * the application already keeps its MPI calls apart (hrace__mpi_serial): two lock pairs fewer
 * per send + receive. Orphans: requests freed while active. */
#include "mpi/reqtab.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool lock(void) {
  bool multi = !hrace__mpi_serial();
  if (multi) pthread_mutex_lock(&mu);
  return multi;
}
static void unlock(bool multi) { if (multi) pthread_mutex_unlock(&mu); }
static hrace_map_t tab = HRACE_MAP_INIT;   /* MPI_Request -> hrace_rs_t */
/* Written only by holders of `mu` (or, below MULTIPLE, by the one thread in MPI), so a plain
 * load and store suffice; atomic only for hrace__rs_any's unlocked read. */
static _Atomic size_t live;
static void live_add(long d) {
  atomic_store_explicit(&live, atomic_load_explicit(&live, memory_order_relaxed) + d,
                        memory_order_relaxed);
}

/* A small per-thread cache of freed states: a request per message must not cost a malloc. */
#define CACHE 16
static __thread hrace_rs_t *cache[CACHE];
static __thread int ncache;

hrace_rs_t *hrace__rs_new(int kind) {
  hrace_rs_t *s = ncache ? cache[--ncache] : malloc(sizeof *s);
  if (!s) abort();
  /* Field by field: the memset of the header compiled to `rep stos` (rs_new was 3 % of a send +
   * receive to self in perf). */
  s->kind = kind;
  s->persistent = s->started = s->active = 0;
  s->fn = NULL;
  s->rec = NULL;
  s->buf = NULL;
  s->count = 0;
  s->type = MPI_DATATYPE_NULL;
  s->peer = s->tag = s->mode = 0;
  s->frame = NULL;
  s->ftype = MPI_DATATYPE_NULL;
  s->fbytes = 0;
  s->pc = 0;
  s->sync_id = 0;
  s->post = NULL;
  s->done = 0;
  s->data_bytes = -1;
  s->ckind = s->root = 0;
  s->cbuf = NULL;
  s->cn = 0;
  s->shadow_req[0] = MPI_REQUEST_NULL;
  s->nshadow = 0;
  s->pieces = NULL;
  s->npieces = 0;
  s->newcomm = NULL;
  s->shadow_comm = MPI_COMM_NULL;
  s->watch = NULL;
  s->watch_arg = NULL;
  s->watch_req = MPI_REQUEST_NULL;
  s->nbbuf = NULL;
  s->same = NULL;
  s->owner = &ncache;   /* thread-local: one address per thread */
  return s;
}

/* Every state of a chain (hrace_rs_t.same) whose head was displaced as stale. */
static void stale_done(hrace_rs_t *stale) {
  for (; stale; stale = stale->same) hrace__rs_buffers_done(stale);
}

/* Caller holds mu: s goes in front of whatever is under key r. */
static void chain_locked(MPI_Request r, hrace_rs_t *s) {
  hrace_rs_t *old = hrace_map_put(&tab, HRACE_HASH_KEY(r), s);
  if (old == s) return;   /* already there */
  s->same = old;
  live_add(1);
}

void hrace__rs_put(MPI_Request r, hrace_rs_t *s) {
  bool multi = lock();
  hrace_rs_t *old = hrace_map_get(&tab, HRACE_HASH_KEY(r));
  if (old && old != s) {
    /* Stale, or a handle MPI shares among requests complete at issue (MPI_Request_get_status
     * frees nothing and, on a complete request, does not progress MPI). */
    unlock(multi);
    int flag = 0, init = 0;
    PMPI_Initialized(&init);   /* the unit tests' fake handles: no MPI */
    if (init) PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
    multi = lock();
    if (flag) {
      chain_locked(r, s);
      unlock(multi);
      return;
    }
  }
  /* One probe (hrace_map_put); a state already there is stale: MPI reused the handle, so its
   * request has completed, and its buffers are the application's again. */
  s->same = NULL;
  hrace_rs_t *stale = hrace_map_put(&tab, HRACE_HASH_KEY(r), s);
  if (!stale) live_add(1);
  else if (stale != s) for (hrace_rs_t *t = stale->same; t; t = t->same) live_add(-1);
  unlock(multi);
  if (stale && stale != s) stale_done(stale);
}

void hrace__rs_put_back(MPI_Request r, hrace_rs_t *s) {
  bool multi = lock();
  chain_locked(r, s);
  unlock(multi);
}

int hrace__rs_any(void) { return atomic_load_explicit(&live, memory_order_relaxed) != 0; }

hrace_rs_t *hrace__rs_get(MPI_Request r) {
  if (!hrace__rs_any() || r == MPI_REQUEST_NULL) return NULL;
  bool multi = lock();
  hrace_rs_t *s = hrace_map_get(&tab, HRACE_HASH_KEY(r));
  unlock(multi);
  return s;
}

/* Caller holds mu. Out of a chain, the calling thread's newest state (the thread that posted
 * a request is the one that completes it in practice; MPI allows another, and then the
 * handle says nothing more), or else the newest. */
static hrace_rs_t *take_locked(MPI_Request r) {
  uint64_t key = HRACE_HASH_KEY(r);
  hrace_rs_t *s = hrace_map_get(&tab, key);
  if (!s) return NULL;
  live_add(-1);
  if (!s->same) {
    hrace_map_del(&tab, key);
    return s;
  }
  hrace_rs_t **p = &s;
  for (hrace_rs_t **q = &s; *q; q = &(*q)->same)
    if ((*q)->owner == (const void *)&ncache) {
      p = q;
      break;
    }
  hrace_rs_t *t = *p;
  if (t == s) hrace_map_put(&tab, key, s->same);
  else *p = t->same;
  t->same = NULL;
  return t;
}

hrace_rs_t *hrace__rs_take(MPI_Request r) {
  if (!hrace__rs_any() || r == MPI_REQUEST_NULL) return NULL;
  bool multi = lock();
  hrace_rs_t *s = take_locked(r);
  unlock(multi);
  return s;
}

/* The array forms (complete.c): one lock pair for all n requests of a Waitany / Testsome /
 * ..., which a polling loop calls over and over. */
void hrace__rs_take_n(int n, const MPI_Request r[], hrace_rs_t *out[]) {
  if (!hrace__rs_any()) {
    for (int i = 0; i < n; i++) out[i] = NULL;
    return;
  }
  bool multi = lock();
  for (int i = 0; i < n; i++) out[i] = r[i] == MPI_REQUEST_NULL ? NULL : take_locked(r[i]);
  unlock(multi);
}

void hrace__rs_put_n(int n, const MPI_Request r[], hrace_rs_t *const s[]) {
  bool multi = lock();
  for (int i = 0; i < n; i++)
    if (s[i]) chain_locked(r[i], s[i]);
  unlock(multi);
}

void hrace__rs_free(hrace_rs_t *s) {
  if (!s) return;
  hrace__rs_buffers_done(s);
  if (s->ftype != MPI_DATATYPE_NULL) PMPI_Type_free(&s->ftype);
  if (s->frame != s->inl) free(s->frame);
  if (s->cbuf) free(s->cbuf);
  free(s->pieces);
  if (ncache < CACHE) cache[ncache++] = s;
  else free(s);
}

void *hrace__rs_frame(hrace_rs_t *s, size_t n) {
  s->frame = n <= sizeof s->inl ? s->inl : malloc(n);
  if (!s->frame) abort();
  return s->frame;
}

/* ---- orphans ------------------------------------------------------------------------------ */
typedef struct orphan { MPI_Request r; hrace_rs_t *s; struct orphan *next; } orphan_t;
static orphan_t *orphans;
static pthread_mutex_t omu = PTHREAD_MUTEX_INITIALIZER;
_Atomic int hrace__rs_norphans;

void hrace__rs_orphan(MPI_Request r, hrace_rs_t *s) {
  orphan_t *o = malloc(sizeof *o);
  if (!o) abort();
  *o = (orphan_t){ r, s, NULL };
  pthread_mutex_lock(&omu);
  o->next = orphans;
  orphans = o;
  atomic_fetch_add(&hrace__rs_norphans, 1);
  pthread_mutex_unlock(&omu);
}

void hrace__rs_poll_orphans_slow(int wait_all) {
  pthread_mutex_lock(&omu);
  for (orphan_t **p = &orphans; *p;) {
    orphan_t *o = *p;
    int flag = 0;
    MPI_Status st;
    PMPI_Test(&o->r, &flag, &st);
    if (!flag && wait_all) {
      /* MPI_Finalize: a freed receive nobody sent to would never finish: cancel it. */
      if (o->s && o->s->kind == HRACE_RS_RECV) PMPI_Cancel(&o->r);
      PMPI_Wait(&o->r, &st);
      flag = 1;
    }
    if (!flag) { p = &o->next; continue; }
    /* Nobody waits for a freed request: its data still lands (receives), but no edge. */
    if (o->s) {
      o->s->persistent = 0;
      hrace__rs_complete(o->s, &st, 0);
    }
    if (o->r != MPI_REQUEST_NULL) PMPI_Request_free(&o->r);
    *p = o->next;
    free(o);
    atomic_fetch_sub(&hrace__rs_norphans, 1);
  }
  pthread_mutex_unlock(&omu);
}
