/* A test-only window on the clocks: tests/cases/mpi_clk_*.c ask "did event X happen before
 * event Y?" by taking the epoch of X where it happens and the clock of Y where it happens,
 * gathering both over PMPI (which hrace does not see) and comparing: X -> Y iff
 * epoch(X).value <= clock(Y)[epoch(X).exporter]. Exported with the public prefix; programs
 * declare the two prototypes themselves (they are not part of include/hrace.h). */
#include <string.h>

#include "core/proc.h"
#include "core/thread.h"

/* The calling thread's exporter and current epoch value. */
HRACE_EXPORT unsigned hrace_test_epoch(unsigned *exporter) {
  if (exporter) *exporter = hrace__proc.mpi_ready ? hrace__thread_exporter() : 0;
  return hrace__proc.mpi_ready ? hrace__thread_epoch() : 0;
}

/* Copy up to cap entries of the calling thread's clock; returns the number of entries. */
HRACE_EXPORT unsigned hrace_test_clock(unsigned *out, unsigned cap) {
  if (!hrace__proc.mpi_ready) return 0;
  const hrace_vc_t *v = hrace__thread_view();
  memcpy(out, v->c, (v->n < cap ? v->n : cap) * sizeof *out);
  return v->n;
}
