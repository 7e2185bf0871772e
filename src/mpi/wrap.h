/* What every MPI wrapper does around the real call: find the thread state, and pass straight
 * through when hrace itself is the caller (re-entry depth is per thread: a process-global
 * flag would race under MPI_THREAD_MULTIPLE) or when the runtime is not active. */
#ifndef HRACE_MPI_WRAP_H
#define HRACE_MPI_WRAP_H
#include "core/mpicode.h"
#include "core/proc.h"
#include "core/thread.h"
#include "access/sweep.h"

/* The application's code address of this MPI call (the wrapper's return address, or past the
 * MPI library's Fortran binding: core/mpicode.h). Use in the wrapper itself. */
#define HRACE_CALLER() hrace__caller(HRACE_RET_ADDR())

/* Evaluates to true when the wrapper should do its work; pair with HRACE_LEAVE(). */
#define HRACE_ENTER() \
  hrace_thread_t *hrace_t_ = hrace__thread(); \
  const int hrace_on_ = hrace_t_->depth++ == 0 && hrace__proc.mpi_ready; \
  if (hrace_on_) hrace__sweep_mpi_call(); /* access/sweep.h */ \
  (void)hrace_on_
#define HRACE_ACTIVE() (hrace_on_)
#define HRACE_LEAVE() (hrace_t_->depth--)

/* Return the real call made as a nested call is (the depth raised around it, nothing else:
 * what HRACE_ENTER's wrapper does when it is not active), for a call that needs nothing more
 * (rma/ops.c's hot repeat, which only a thread whose state exists can hold). */
#define HRACE_PASS(real) \
  do { \
    hrace__self.depth++; \
    const int hrace_rc_ = (real); \
    hrace__self.depth--; \
    return hrace_rc_; \
  } while (0)
#endif
