/* Collectives: the real call, then the clock exchange of its class (seed 001 Table II).
 * The real call comes first so that MPI reports an invalid argument as it always would, and a
 * call that fails records no edge. */
#include "core/runtime.h"
#include "mpi/sync.h"
#include "mpi/wrap.h"

HRACE_EXPORT int MPI_Barrier(MPI_Comm comm) {
  HRACE_ENTER();
  int rc = PMPI_Barrier(comm);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS) hrace__sync_all(hrace__comm_shadow(comm), NULL, 0, "MPI_Barrier");
  HRACE_LEAVE();
  return rc;
}
