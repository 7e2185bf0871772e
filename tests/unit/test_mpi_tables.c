/* Unit tests of the MPI layer's request bookkeeping, without MPI: the request-state table
 * (mpi/reqtab.h: put / get / take by handle, a handle MPI reuses, the live count that lets
 * completion wrappers skip the table, thousands of requests at once) and the request watches
 * (mpi/request.h: a watch fires once, persistent requests keep theirs, forget with and without
 * running it). Request handles are made up: the tables only compare them. */
#include <stdint.h>
#include <string.h>

#include "core/proc.h"
#include "mpi/reqtab.h"
#include "mpi/request.h"
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
  plan(18);
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

  /* Watches. */
  int x, y;
  ok(!hrace__request_watched(H(7)), "nothing watched at start");
  hrace__request_watch(H(7), on_done, &x);
  ok(hrace__request_watched(H(7)) && !hrace__request_watched(H(8)), "a watch is on its request only");
  hrace__request_done(H(7), NULL, 1);
  ok(fired == 1 && fired_arg == &x && hrace__request_watched(H(7)),
     "a persistent request's completion fires and keeps the watch");
  hrace__request_done(H(7), NULL, 0);
  ok(fired == 2 && !hrace__request_watched(H(7)), "a plain completion fires and removes it");
  hrace__request_done(H(7), NULL, 0);
  is_int(2, fired, "a completed request's handle, reused unwatched, fires nothing");
  hrace__request_watch(H(9), on_done, &y);
  hrace__request_forget(H(9), 0);
  ok(fired == 2 && !hrace__request_watched(H(9)), "forget drops a watch without running it");
  hrace__request_watch(H(9), on_done, &y);
  hrace__request_forget(H(9), 1);
  ok(fired == 3 && fired_arg == &y, "forget with run set runs it (a freed Rput still completes)");
  return tap_done();
}
