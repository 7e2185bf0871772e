/* Watching MPI requests (see request.h): a watch is a request state of kind HRACE_RS_WATCH in
 * the one request table (reqtab.h), so a completion wrapper finds hrace's own state and other
 * layers' watches with one look-up; complete.c runs it. */
#include "mpi/request.h"

#include "mpi/reqtab.h"

void hrace__request_watch(MPI_Request req, hrace_req_done_t done, void *arg) {
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_WATCH);
  s->watch = done;
  s->watch_arg = arg;
  s->watch_req = req;
  hrace__rs_put(req, s);
}

void *(*hrace__nb_track_hook)(const hrace_nbbuf_t *b, int n, const char *fn, uintptr_t pc);
void (*hrace__nb_done_hook)(void *op);
