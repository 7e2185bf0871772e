/* Request completion: MPI_Wait / MPI_Test / MPI_Waitall report each completed request to the
 * watch table (request.h). The full family (any / some, persistent requests, receive clocks)
 * comes with the generated wrappers of issue 5. */
#include <stdlib.h>

#include "core/runtime.h"
#include "mpi/request.h"
#include "mpi/wrap.h"

HRACE_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status) {
  HRACE_ENTER();
  MPI_Request old = *req;
  MPI_Status tmp;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  int rc = PMPI_Wait(req, st);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS && old != MPI_REQUEST_NULL)
    hrace__request_done(old, st, *req != MPI_REQUEST_NULL);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status) {
  HRACE_ENTER();
  MPI_Request old = *req;
  MPI_Status tmp;
  MPI_Status *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  int rc = PMPI_Test(req, flag, st);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS && *flag && old != MPI_REQUEST_NULL)
    hrace__request_done(old, st, *req != MPI_REQUEST_NULL);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  HRACE_ENTER();
  MPI_Request stackold[16], *old = n <= 16 ? stackold : malloc(n * sizeof *old);
  MPI_Status stackst[16], *st = statuses;
  if (!old) abort();
  for (int i = 0; i < n; i++) old[i] = reqs[i];
  if (statuses == MPI_STATUSES_IGNORE) {
    st = n <= 16 ? stackst : malloc(n * sizeof *st);
    if (!st) abort();
  }
  int rc = PMPI_Waitall(n, reqs, st);
  if (HRACE_ACTIVE() && rc == MPI_SUCCESS)
    for (int i = 0; i < n; i++)
      if (old[i] != MPI_REQUEST_NULL) hrace__request_done(old[i], &st[i], reqs[i] != MPI_REQUEST_NULL);
  if (old != stackold) free(old);
  if (st != statuses && st != stackst) free(st);
  HRACE_LEAVE();
  return rc;
}
