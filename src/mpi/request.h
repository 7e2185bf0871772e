/* Watching MPI requests: a layer that needs to act when a request completes (an MPI_Rput's
 * local and remote completion, a non-blocking receive's clock wait, a non-blocking
 * collective's clock exchange) registers a callback; the completion wrappers (MPI_Wait*,
 * MPI_Test*) call hrace__request_done for every request they saw complete.
 *
 * Request handles are reused by MPI once a request completes or is freed, so a watch is
 * removed when it fires or when the request is freed (MPI_Request_free). Thread-safe. */
#ifndef HRACE_MPI_REQUEST_H
#define HRACE_MPI_REQUEST_H
#include <mpi.h>

/* `status` may be MPI_STATUS_IGNORE-like NULL when the caller ignored it. Runs on the thread
 * that completed the request, inside the completing MPI call's wrapper. */
typedef void (*hrace_req_done_t)(void *arg, MPI_Request req, const MPI_Status *status);

void hrace__request_watch(MPI_Request req, hrace_req_done_t done, void *arg);
/* Is anything watching req? (Cheap: completion wrappers call it for every request.) */
int hrace__request_watched(MPI_Request req);
/* Completion of `req` (the handle as it was before MPI reset it to MPI_REQUEST_NULL):
 * runs and removes its watch, if any. Persistent requests keep their watch (`keep` != 0). */
void hrace__request_done(MPI_Request req, const MPI_Status *status, int keep);
/* MPI_Request_free / MPI_Cancel of a watched request: drop the watch without running it,
 * or with `run` != 0, run it (a freed Rput still completes at the next synchronisation). */
void hrace__request_forget(MPI_Request req, int run);
#endif
