/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Synchronous sends order both ways (seed 001 Table I): rank 1's events before it posted the
 * receive are ordered before rank 0's return from MPI_Ssend / the Wait of MPI_Issend, its events
 * after the post are not. The Issend case would deadlock if rank 1's clock came back only at
 * its Wait: rank 1 waits for x, which rank 0 sends after its own Wait. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, a = 0, x = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  stamp_t pre = stamp(), post = pre, pre2 = pre, post2 = pre;
  view_t v = view(), v2 = v;
  if (rank == 0) {
    MPI_Ssend(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    v = view();
    MPI_Issend(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    v2 = view();
    MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
  } else {
    MPI_Irecv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    post = stamp();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    pre2 = stamp();
    MPI_Irecv(&a, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r);
    post2 = stamp();
    MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  check_hb(1, pre, 0, v, 1, "receiver before its post -> after MPI_Ssend");
  check_hb(1, post, 0, v, 0, "receiver after its post is not ordered before the sender");
  check_hb(0, pre, 1, view(), 1, "sender before MPI_Ssend -> receiver after its Wait");
  check_hb(1, pre2, 0, v2, 1, "Irecv matched early: pre-post -> Wait(Issend), no deadlock");
  check_hb(1, post2, 0, v2, 0, "... but not what came after the post");
  return clk_finish();
}
