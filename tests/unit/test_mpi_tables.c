/* Unit tests of the MPI layer's request bookkeeping, without MPI: the request-state table
 * (mpi/reqtab.h: put / get / take by handle, a handle MPI reuses, the live count that lets
 * completion wrappers skip the table, thousands of requests at once) and the watches other
 * layers keep in it (mpi/request.h: a WATCH state, run once at completion, replaced when the
 * handle is watched again). Request handles are made up: the table only compares them. */
#include <stdint.h>
#include <string.h>

#include "core/proc.h"
#include "mpi/reqtab.h"
#include "tap.h"

static MPI_Request H(uintptr_t i) {   /* a handle: a pointer (Open MPI) or an int (MPICH) */
  MPI_Request r;
  uintptr_t v = 0x1000 + i * 64;
  memset(&r, 0, sizeof r);
  memcpy(&r, &v, sizeof r < sizeof v ? sizeof r : sizeof v);
  return r;
}

static int fired;
static void *fired_arg;
static void on_done(void *arg, MPI_Request req, const MPI_Status *st) {
  fired++;
  fired_arg = arg;
}

int main(void) {
  plan(17);
  hrace__proc.thread_level = MPI_THREAD_SINGLE;   /* one thread: the table skips its lock */

  ok(!hrace__rs_any(), "no state live at start");
  ok(hrace__rs_get(H(1)) == NULL, "an unknown request has no state");
  hrace_rs_t *a = hrace__rs_new(HRACE_RS_SEND), *b = hrace__rs_new(HRACE_RS_RECV);
  hrace__rs_put(H(1), a);
  hrace__rs_put(H(2), b);
  ok(hrace__rs_any(), "live once a state is put");
  ok(hrace__rs_get(H(1)) == a && hrace__rs_get(H(2)) == b, "each handle finds its state");
  ok(hrace__rs_get(MPI_REQUEST_NULL) == NULL, "MPI_REQUEST_NULL finds nothing");
  hrace_rs_t *c = hrace__rs_new(HRACE_RS_SEND);
  hrace__rs_put(H(1), c);   /* MPI reused the handle while a stale state was there */
  ok(hrace__rs_get(H(1)) == c, "a reused handle gets the new state");
  ok(hrace__rs_take(H(1)) == c && hrace__rs_get(H(1)) == NULL, "take removes it");
  ok(hrace__rs_take(H(1)) == NULL, "a second take finds nothing");
  ok(hrace__rs_take(H(2)) == b && !hrace__rs_any(), "the last take leaves nothing live");
  hrace__rs_free(a);
  hrace__rs_free(b);
  hrace__rs_free(c);

  /* Many requests in flight at once: the table grows, and takes them back in any order. */
  enum { N = 5000 };
  static hrace_rs_t *s[N];
  for (uintptr_t i = 0; i < N; i++) hrace__rs_put(H(100 + i), s[i] = hrace__rs_new(HRACE_RS_RECV));
  int found = 0;
  for (uintptr_t i = 0; i < N; i++) found += hrace__rs_get(H(100 + i)) == s[i];
  is_int(N, found, "5000 live requests all found");
  int taken = 0;
  for (uintptr_t i = 0; i < N; i += 2) taken += hrace__rs_take(H(100 + i)) == s[i];
  for (uintptr_t i = 1; i < N; i += 2) taken += hrace__rs_take(H(100 + i)) == s[i];
  ok(taken == N && !hrace__rs_any(), "taken back even first, then odd: nothing live");
  for (uintptr_t i = 0; i < N; i++) hrace__rs_free(s[i]);

  /* Watches: states of kind WATCH in the same table; completion runs them. */
  int x, y;
  MPI_Status st;
  hrace__request_watch(H(7), on_done, &x);
  hrace_rs_t *w = hrace__rs_get(H(7));
  ok(w && w->kind == HRACE_RS_WATCH && w->watch_arg == &x && hrace__rs_any(),
     "a watch is a WATCH state under its handle");
  ok(hrace__rs_get(H(8)) == NULL, "on its request only");
  hrace__rs_complete(hrace__rs_take(H(7)), &st, 1);
  ok(fired == 1 && fired_arg == &x, "completion runs it once");
  ok(hrace__rs_get(H(7)) == NULL && !hrace__rs_any(), "and it is gone");
  hrace__request_watch(H(9), on_done, &x);
  hrace__request_watch(H(9), on_done, &y);
  w = hrace__rs_get(H(9));
  ok(w && w->watch_arg == &y && w->watch_req == H(9), "watching a handle again replaces the watch");
  hrace__rs_complete(hrace__rs_take(H(9)), &st, 0);
  ok(fired == 2 && fired_arg == &y, "and the new one runs, also for a nested call");
  return tap_done();
}
