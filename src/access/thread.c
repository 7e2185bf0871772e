/* Per-thread state of the access layer (see thread.h). */
#include "access/thread.h"

#include <stdatomic.h>

#include "access/filter.h"
#include "access/full.h"
#include "access/sweep.h"

__thread hrace_athread_t hrace__at __attribute__((tls_model("initial-exec"), aligned(64)));

/* Threads that ran instrumented code. hrace's own threads and MPI's never do. */
static _Atomic unsigned napp;

void hrace__athread_register(void) {
  hrace_athread_t *t = &hrace__at;
  if (t->app) return;
  t->app = true;
  t->rt = hrace__thread();
  t->internal = t->rt->tid < 0;
  hrace__sweep_thread_begins();
  if (atomic_fetch_add_explicit(&napp, 1, memory_order_relaxed) == 1) {
    hrace__filter_history_on();
    hrace__full_start();   /* threads not announced by OMPT or pthread_create */
  }
  hrace__full_thread_begins();
}
