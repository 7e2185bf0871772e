/* Per-thread state of the access layer (see thread.h). */
#include "access/thread.h"

#include <stdatomic.h>

#include "access/filter.h"
#include "access/full.h"

__thread hrace_athread_t hrace__at __attribute__((tls_model("initial-exec"), aligned(64)));

/* Threads that ran instrumented code. hrace's own threads and MPI's never do. */
static _Atomic unsigned napp;

unsigned hrace__athread_count(void) { return atomic_load_explicit(&napp, memory_order_acquire); }

void hrace__athread_register(void) {
  hrace_athread_t *t = &hrace__at;
  if (t->app) return;
  t->app = true;
  t->rt = hrace__thread();
  if (atomic_fetch_add_explicit(&napp, 1, memory_order_relaxed) == 1) {
    hrace__filter_history_on();
    hrace__full_start();   /* threads not announced by OMPT or pthread_create */
  }
  hrace__full_thread_begins();
}
