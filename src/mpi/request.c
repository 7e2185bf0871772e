/* The request watch table (see request.h): a base/map.h map under a mutex.
 * An atomic count lets completion wrappers skip the lock entirely when nothing is watched,
 * which is the common case for programs without request-based RMA or non-blocking calls. */
#include "mpi/request.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"

typedef struct watch { hrace_req_done_t done; void *arg; } watch_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_map_t tab = HRACE_MAP_INIT;   /* MPI_Request -> watch_t, under mu */
static _Atomic size_t live;                /* hrace_map_count(&tab), for the unlocked check */

void hrace__request_watch(MPI_Request req, hrace_req_done_t done, void *arg) {
  watch_t *w = malloc(sizeof *w);
  if (!w) abort();
  *w = (watch_t){ done, arg };
  pthread_mutex_lock(&mu);
  free(hrace_map_put(&tab, HRACE_HASH_KEY(req), w));
  atomic_store_explicit(&live, hrace_map_count(&tab), memory_order_relaxed);
  pthread_mutex_unlock(&mu);
}

int hrace__request_watched(MPI_Request req) {
  if (!atomic_load_explicit(&live, memory_order_relaxed)) return 0;
  pthread_mutex_lock(&mu);
  int r = hrace_map_get(&tab, HRACE_HASH_KEY(req)) != NULL;
  pthread_mutex_unlock(&mu);
  return r;
}

static int take(MPI_Request req, watch_t *out, int keep) {
  if (!atomic_load_explicit(&live, memory_order_relaxed)) return 0;
  pthread_mutex_lock(&mu);
  uint64_t k = HRACE_HASH_KEY(req);
  watch_t *w = keep ? hrace_map_get(&tab, k) : hrace_map_del(&tab, k);
  if (w) *out = *w;
  atomic_store_explicit(&live, hrace_map_count(&tab), memory_order_relaxed);
  pthread_mutex_unlock(&mu);
  if (w && !keep) free(w);
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
