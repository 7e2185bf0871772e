/* Unit tests of the request table (mpi/reqtab.h) beyond test_mpi_tables.c, without MPI: a
 * handle MPI gives to several requests at once (states chained under it, each take returning
 * the calling thread's newest first), the array forms that complete a Waitall / Testsome
 * (MPI_REQUEST_NULL entries skipped), states reused from the per-thread cache with every field
 * reset, frames inline or on the heap, and two threads putting and taking their own requests
 * under MPI_THREAD_MULTIPLE. Request handles are made up: the table only compares them. */
#include <pthread.h>
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

static void *other_thread_state(void *arg) { return hrace__rs_new(HRACE_RS_SEND); }

enum { PER_THREAD = 20000 };
static void *churn(void *arg) {   /* put, find and take back this thread's own handles */
  uintptr_t base = (uintptr_t)arg;
  long found = 0;
  for (uintptr_t i = 0; i < PER_THREAD; i++) {
    hrace_rs_t *s = hrace__rs_new(HRACE_RS_RECV);
    hrace__rs_put(H(base + i), s);
    found += hrace__rs_get(H(base + i)) == s;
    found += hrace__rs_take(H(base + i)) == s;
    hrace__rs_free(s);
  }
  return (void *)found;
}

int main(void) {
  plan(17);
  hrace__proc.thread_level = MPI_THREAD_SINGLE;

  /* One handle, several requests (Open MPI's ompi_request_empty): chained, newest first. */
  hrace_rs_t *a = hrace__rs_new(HRACE_RS_SEND), *b = hrace__rs_new(HRACE_RS_SEND);
  hrace__rs_put(H(1), a);
  hrace__rs_put_back(H(1), b);
  ok(hrace__rs_get(H(1)) == b && b->same == a, "a state put back goes in front of the one there");
  ok(hrace__rs_take(H(1)) == b && hrace__rs_get(H(1)) == a && hrace__rs_any(),
     "take returns the newest; the other stays");
  ok(hrace__rs_take(H(1)) == a && !hrace__rs_any(), "then the other: nothing live");

  /* The calling thread's own state first, even when another thread's is newer. */
  pthread_t th;
  void *theirs;
  pthread_create(&th, NULL, other_thread_state, NULL);
  pthread_join(th, &theirs);
  hrace__rs_put(H(2), a);
  hrace__rs_put_back(H(2), theirs);
  ok(hrace__rs_get(H(2)) == theirs, "another thread's state put back is in front");
  ok(hrace__rs_take(H(2)) == a, "but take returns the caller's own");
  ok(hrace__rs_take(H(2)) == theirs && !hrace__rs_any(), "then the other thread's: nothing live");
  hrace__rs_free(theirs);

  /* Array forms: one lock pair for a Waitall's requests; MPI_REQUEST_NULL has no state. */
  MPI_Request r[4] = { H(10), MPI_REQUEST_NULL, H(11), H(12) };
  hrace_rs_t *in[4] = { a, NULL, b, NULL }, *out[4];
  hrace__rs_put_n(4, r, in);
  ok(hrace__rs_get(H(10)) == a && hrace__rs_get(H(11)) == b && hrace__rs_get(H(12)) == NULL,
     "put_n puts the states given, skips the NULL ones");
  hrace__rs_take_n(4, r, out);
  ok(out[0] == a && out[1] == NULL && out[2] == b && out[3] == NULL,
     "take_n returns each request's state, NULL for MPI_REQUEST_NULL and unknown handles");
  ok(!hrace__rs_any(), "take_n took them all");
  hrace__rs_take_n(4, r, out);
  ok(!out[0] && !out[1] && !out[2] && !out[3], "a second take_n finds nothing");

  /* Reuse: a freed state comes back from the per-thread cache with every field reset. */
  a->persistent = a->started = 1;
  a->data_bytes = 42;
  a->same = b;
  hrace__rs_free(a);
  hrace_rs_t *c = hrace__rs_new(HRACE_RS_RECV);
  ok(c == a, "a freed state is reused for the next request");
  ok(c->kind == HRACE_RS_RECV && !c->persistent && !c->started && c->data_bytes == -1 &&
     c->same == NULL && c->frame == NULL, "with its fields reset");

  /* Frames: small ones in the state itself, large ones on the heap (freed with the state). */
  ok(hrace__rs_frame(c, 16) == c->inl, "a small frame is inline");
  hrace__rs_free(c);
  c = hrace__rs_new(HRACE_RS_SEND);
  void *big = hrace__rs_frame(c, sizeof c->inl + 1);
  ok(big != NULL && big != c->inl, "a large frame is allocated");
  hrace__rs_free(c);
  hrace__rs_free(b);

  /* MPI_THREAD_MULTIPLE: the table's lock keeps two threads' puts and takes apart. */
  hrace__proc.thread_level = MPI_THREAD_MULTIPLE;
  pthread_t t1, t2;
  void *f1, *f2;
  pthread_create(&t1, NULL, churn, (void *)(uintptr_t)100000);
  pthread_create(&t2, NULL, churn, (void *)(uintptr_t)200000);
  pthread_join(t1, &f1);
  pthread_join(t2, &f2);
  is_int(2 * PER_THREAD, (long)f1, "thread 1 found and took back each of its requests");
  is_int(2 * PER_THREAD, (long)f2, "thread 2 found and took back each of its requests");
  ok(!hrace__rs_any(), "nothing live at the end");
  return tap_done();
}
