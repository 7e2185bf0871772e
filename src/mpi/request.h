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
#include <stddef.h>
#include <stdint.h>

/* `status` may be MPI_STATUS_IGNORE-like NULL when the caller ignored it. Runs on the thread
 * that completed the request, inside the completing MPI call's wrapper. */
typedef void (*hrace_req_done_t)(void *arg, MPI_Request req, const MPI_Status *status);

/* Watch req (not a persistent request): done runs once, when a completion wrapper sees req
 * complete, or at MPI_Request_free (status NULL: a freed operation still completes); a cancelled
 * request's watch is dropped without running. */
void hrace__request_watch(MPI_Request req, hrace_req_done_t done, void *arg);

/* Buffers of non-blocking calls (MPI-3.1 Sec. 3.7.2, 3.9, 5.12): from the call that posts
 * them to the completion of its request, a send buffer may be read and a receive buffer
 * written by MPI at any moment, so a store to the former, or any access to the latter, by any
 * thread of the process is a race. One piece is one (address, count, datatype) triple;
 * holes of derived types are not part of it. rma/buffers.c, which tracks RMA operations'
 * buffers the same way, registers the two hooks at load; the MPI layer (which may not
 * include rma/) calls them through hrace__nb_track / hrace__nb_done. */
typedef struct hrace_nbbuf {
  const void *addr;
  int count;
  MPI_Datatype dt;
  int writes;                  /* MPI writes it (receive buffers) */
} hrace_nbbuf_t;
extern void *(*hrace__nb_track_hook)(const hrace_nbbuf_t *b, int n, const char *fn, uintptr_t pc);
extern void (*hrace__nb_done_hook)(void *op);
/* Track pieces b[0..n) of call fn (called from code address pc); returns the handle for
 * hrace__nb_done, or NULL (nothing to track). */
static inline void *hrace__nb_track(const hrace_nbbuf_t *b, int n, const char *fn, uintptr_t pc) {
  return hrace__nb_track_hook ? hrace__nb_track_hook(b, n, fn, pc) : NULL;
}
static inline void hrace__nb_done(void *op) {
  if (op && hrace__nb_done_hook) hrace__nb_done_hook(op);
}
#endif
