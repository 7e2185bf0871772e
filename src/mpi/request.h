/* Watching MPI requests: a layer above the MPI layer that needs to act when a request completes
 * (rma/: an MPI_Rput's local and remote completion) registers a callback; the completion
 * wrappers (MPI_Wait*, MPI_Test*) run it for every request they saw complete (mpi/complete.c,
 * from the one request table of mpi/reqtab.h, which also holds the MPI layer's own states).
 *
 * Request handles are reused by MPI once a request completes or is freed, so a watch is
 * removed when it fires or when the request is freed (MPI_Request_free). Called by application
 * threads inside MPI calls, as the table's locking requires (reqtab.c). */
#ifndef HRACE_MPI_REQUEST_H
#define HRACE_MPI_REQUEST_H
#include <mpi.h>

/* `status` may be MPI_STATUS_IGNORE-like NULL when the caller ignored it. Runs on the thread
 * that completed the request, inside the completing MPI call's wrapper. */
typedef void (*hrace_req_done_t)(void *arg, MPI_Request req, const MPI_Status *status);

/* Watch req (not a persistent request): done runs once, when a completion wrapper sees req
 * complete, or at MPI_Request_free (status NULL: a freed operation still completes); a cancelled
 * request's watch is dropped without running. */
void hrace__request_watch(MPI_Request req, hrace_req_done_t done, void *arg);
#endif
