/* The request watch table (see request.h): a small open-addressing hash map under a mutex.
 * An atomic count lets completion wrappers skip the lock entirely when nothing is watched,
 * which is the common case for programs without request-based RMA or non-blocking calls. */
#include "mpi/request.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct watch { MPI_Request req; hrace_req_done_t done; void *arg; int used; } watch_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static watch_t *tab;
static size_t cap, used;
static _Atomic size_t live;

static size_t slot(MPI_Request r) {
  uintptr_t h = (uintptr_t)r;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 20);
}

static watch_t *find(MPI_Request r) {
  if (!cap) return NULL;
  for (size_t i = slot(r) & (cap - 1), n = 0; n < cap; i = (i + 1) & (cap - 1), n++) {
    if (!tab[i].used) return NULL;
    if (tab[i].used == 1 && tab[i].req == r) return &tab[i];
  }
  return NULL;
}

static void put(MPI_Request r, hrace_req_done_t d, void *arg) {
  if ((used + 1) * 2 > cap) {   /* grow (and drop tombstones) */
    watch_t *old = tab;
    size_t oldcap = cap;
    cap = cap ? cap * 2 : 64;
    tab = calloc(cap, sizeof *tab);
    if (!tab) abort();
    used = 0;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i].used == 1) put(old[i].req, old[i].done, old[i].arg);
    free(old);
  }
  size_t i = slot(r) & (cap - 1);
  while (tab[i].used == 1) i = (i + 1) & (cap - 1);
  if (!tab[i].used) used++;
  tab[i] = (watch_t){ r, d, arg, 1 };
}

void hrace__request_watch(MPI_Request req, hrace_req_done_t done, void *arg) {
  pthread_mutex_lock(&mu);
  watch_t *w = find(req);
  if (w) *w = (watch_t){ req, done, arg, 1 };
  else put(req, done, arg), atomic_fetch_add(&live, 1);
  pthread_mutex_unlock(&mu);
}

int hrace__request_watched(MPI_Request req) {
  if (!atomic_load_explicit(&live, memory_order_relaxed)) return 0;
  pthread_mutex_lock(&mu);
  int r = find(req) != NULL;
  pthread_mutex_unlock(&mu);
  return r;
}

static int take(MPI_Request req, watch_t *out, int keep) {
  if (!atomic_load_explicit(&live, memory_order_relaxed)) return 0;
  pthread_mutex_lock(&mu);
  watch_t *w = find(req);
  if (w) {
    *out = *w;
    if (!keep) w->used = 2, atomic_fetch_sub(&live, 1);   /* tombstone */
  }
  pthread_mutex_unlock(&mu);
  return w != NULL;
}

void hrace__request_done(MPI_Request req, const MPI_Status *status, int keep) {
  watch_t w;
  if (take(req, &w, keep)) w.done(w.arg, req, status);
}

void hrace__request_forget(MPI_Request req, int run) {
  watch_t w;
  if (take(req, &w, 0) && run) w.done(w.arg, req, NULL);
}
