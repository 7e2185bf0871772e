/* The request-state table (see reqtab.h): open addressing under a mutex, skipped entirely
 * (one relaxed load) while no state is live. Orphans: requests freed while active. */
#include "mpi/reqtab.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct { MPI_Request r; hrace_rs_t *s; } ent_t;   /* s: NULL empty, &tomb deleted */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static ent_t *tab;
static size_t cap, used;
static hrace_rs_t tomb;
static _Atomic size_t live;

static size_t hash(MPI_Request r) {
  uint64_t k = 0;
  memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
  k ^= k >> 31;
  k *= 0x9E3779B97F4A7C15ull;
  return (size_t)(k >> 17);
}

static ent_t *find(MPI_Request r) {
  if (!cap) return NULL;
  for (size_t i = hash(r) & (cap - 1), n = 0; n < cap; i = (i + 1) & (cap - 1), n++) {
    if (!tab[i].s) return NULL;
    if (tab[i].s != &tomb && tab[i].r == r) return &tab[i];
  }
  return NULL;
}

static void insert(MPI_Request r, hrace_rs_t *s) {
  if ((used + 1) * 2 > cap) {
    ent_t *old = tab;
    size_t oldcap = cap;
    cap = cap ? cap * 2 : 128;
    tab = calloc(cap, sizeof *tab);
    if (!tab) abort();
    used = 0;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i].s && old[i].s != &tomb) insert(old[i].r, old[i].s);
    free(old);
  }
  size_t i = hash(r) & (cap - 1);
  while (tab[i].s && tab[i].s != &tomb) i = (i + 1) & (cap - 1);
  if (!tab[i].s) used++;
  tab[i] = (ent_t){ r, s };
}

/* A small per-thread cache of freed states: a request per message must not cost a malloc. */
#define CACHE 16
static __thread hrace_rs_t *cache[CACHE];
static __thread int ncache;

hrace_rs_t *hrace__rs_new(int kind) {
  hrace_rs_t *s = ncache ? cache[--ncache] : malloc(sizeof *s);
  if (!s) abort();
  memset(s, 0, offsetof(hrace_rs_t, postmem));
  s->kind = kind;
  s->ftype = MPI_DATATYPE_NULL;
  s->shadow_req = MPI_REQUEST_NULL;
  return s;
}

void hrace__rs_put(MPI_Request r, hrace_rs_t *s) {
  pthread_mutex_lock(&mu);
  ent_t *e = find(r);
  if (e) e->s = s;   /* a handle MPI reused while hrace still had stale state for it */
  else insert(r, s), atomic_fetch_add_explicit(&live, 1, memory_order_relaxed);
  pthread_mutex_unlock(&mu);
}

int hrace__rs_any(void) { return atomic_load_explicit(&live, memory_order_relaxed) != 0; }

hrace_rs_t *hrace__rs_get(MPI_Request r) {
  if (!hrace__rs_any() || r == MPI_REQUEST_NULL) return NULL;
  pthread_mutex_lock(&mu);
  ent_t *e = find(r);
  hrace_rs_t *s = e ? e->s : NULL;
  pthread_mutex_unlock(&mu);
  return s;
}

hrace_rs_t *hrace__rs_take(MPI_Request r) {
  if (!hrace__rs_any() || r == MPI_REQUEST_NULL) return NULL;
  pthread_mutex_lock(&mu);
  ent_t *e = find(r);
  hrace_rs_t *s = NULL;
  if (e) {
    s = e->s;
    e->s = &tomb;
    atomic_fetch_sub_explicit(&live, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&mu);
  return s;
}

void hrace__rs_free(hrace_rs_t *s) {
  if (!s) return;
  if (s->ftype != MPI_DATATYPE_NULL) PMPI_Type_free(&s->ftype);
  if (s->frame != s->inl) free(s->frame);
  free(s->cbuf);
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
static _Atomic int norphans;

void hrace__rs_orphan(MPI_Request r, hrace_rs_t *s) {
  orphan_t *o = malloc(sizeof *o);
  if (!o) abort();
  *o = (orphan_t){ r, s, NULL };
  pthread_mutex_lock(&omu);
  o->next = orphans;
  orphans = o;
  atomic_fetch_add(&norphans, 1);
  pthread_mutex_unlock(&omu);
}

void hrace__rs_poll_orphans(int wait_all) {
  if (!atomic_load_explicit(&norphans, memory_order_relaxed)) return;
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
    atomic_fetch_sub(&norphans, 1);
  }
  pthread_mutex_unlock(&omu);
}
