/* Tracked address ranges (see filter.h). Writers serialise on a mutex and publish a new
 * array; old arrays are kept (not freed) because a reader may still be scanning one: windows
 * are created and freed rarely, so the leak is a few hundred bytes per window. */
#include "access/filter.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

_Atomic uintptr_t hrace__filter_lo = 0, hrace__filter_span = 0;
_Atomic(hrace_ranges_t *) hrace__filter_ranges = NULL;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

bool hrace__filter_overlaps(uintptr_t a, size_t len) {
  hrace_ranges_t *rs = atomic_load_explicit(&hrace__filter_ranges, memory_order_acquire);
  if (!rs) return false;
  for (unsigned i = 0; i < rs->n; i++)
    if (a < rs->r[i].hi && a + len > rs->r[i].lo) return true;
  return false;
}

static int cmp(const void *x, const void *y) {
  const hrace_range_t *a = x, *b = y;
  return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Publish `n` ranges (sorted here) and the bounds the fast path tests. */
static void publish(hrace_range_t *r, unsigned n) {
  hrace_ranges_t *rs = malloc(sizeof *rs + n * sizeof *r);
  if (!rs) abort();
  rs->n = n;
  memcpy(rs->r, r, n * sizeof *r);
  qsort(rs->r, n, sizeof *r, cmp);
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (unsigned i = 0; i < n; i++) {
    if (rs->r[i].lo < lo) lo = rs->r[i].lo;
    if (rs->r[i].hi > hi) hi = rs->r[i].hi;
  }
  atomic_store_explicit(&hrace__filter_ranges, rs, memory_order_release);
  if (n == 0) {
    atomic_store_explicit(&hrace__filter_span, 0, memory_order_release);
  } else {
    lo = lo > HRACE_FILTER_SLACK ? lo - HRACE_FILTER_SLACK : 0;
    /* Widen before narrowing so a concurrent reader never misses a live range. */
    atomic_store_explicit(&hrace__filter_span, UINTPTR_MAX, memory_order_release);
    atomic_store_explicit(&hrace__filter_lo, lo, memory_order_release);
    atomic_store_explicit(&hrace__filter_span, hi - lo, memory_order_release);
  }
}

void hrace__filter_add(uintptr_t lo, uintptr_t hi, int kind, void *owner) {
  if (hi <= lo) return;
  pthread_mutex_lock(&mu);
  hrace_ranges_t *old = atomic_load_explicit(&hrace__filter_ranges, memory_order_acquire);
  unsigned n = old ? old->n : 0;
  hrace_range_t *r = malloc((n + 1) * sizeof *r);
  if (!r) abort();
  if (n) memcpy(r, old->r, n * sizeof *r);
  r[n] = (hrace_range_t){ lo, hi, kind, owner };
  publish(r, n + 1);
  free(r);
  pthread_mutex_unlock(&mu);
}

void hrace__filter_remove(void *owner) {
  pthread_mutex_lock(&mu);
  hrace_ranges_t *old = atomic_load_explicit(&hrace__filter_ranges, memory_order_acquire);
  unsigned n = old ? old->n : 0, k = 0;
  hrace_range_t *r = malloc((n + 1) * sizeof *r);
  if (!r) abort();
  for (unsigned i = 0; i < n; i++)
    if (old->r[i].owner != owner) r[k++] = old->r[i];
  publish(r, k);
  free(r);
  pthread_mutex_unlock(&mu);
}
