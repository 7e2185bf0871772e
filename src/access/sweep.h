/* The access layer's part of the descriptor sweep (clocks/access.h): each thread that runs
 * instrumented code or calls MPI registers there as it starts, with the descriptor caches a
 * sweep must mark (docs/access.md, "Reclaiming descriptors"). */
#ifndef HRACE_ACCESS_SWEEP_H
#define HRACE_ACCESS_SWEEP_H
#include <stdbool.h>

/* The calling thread starts running instrumented code (access/thread.c) or calling MPI (below);
 * a thread registers once, whichever comes first. */
void hrace__sweep_thread_begins(void);
/* Mark the ids every registered thread's descriptor caches hold. */
void hrace__sweep_mark_threads(void);
/* The calling thread makes an MPI call of the application (mpi/wrap.h, every wrapper that does
 * its work): it registers here if it has not, so that a thread that calls MPI without ever
 * running instrumented code (a thread of an uninstrumented library) is seen running by the
 * parking handshake and no sweep runs while it is inside the call (clocks/access.h). */
extern __thread bool hrace__sweep_seen __attribute__((tls_model("initial-exec")));
void hrace__sweep_mpi_thread(void);
static inline void hrace__sweep_mpi_call(void) {
  if (__builtin_expect(!hrace__sweep_seen, 0)) hrace__sweep_mpi_thread();
}
/* May the calling thread sweep at all: an application thread (hrace's own never do). Every
 * thread that can store or take an id is registered (its first access, its first MPI call), so
 * the rest is hrace__access_stop_others's business. */
bool hrace__sweep_may_run(void);
#endif
