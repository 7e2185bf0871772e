/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Point-to-point edges at clock level (seed 001 Table I; Fig. 1's shape): send -> receive, a
 * chain through a third rank, nothing after the send, no edge backwards, and an Irecv whose data
 * may already be there orders nothing before its Wait. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  stamp_t before = stamp(), after = before;
  view_t v = view(), early = v;
  MPI_Request r;
  if (rank == 0) {
    MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    after = stamp();
    invisible_barrier();
  } else if (rank == 1) {
    MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    invisible_barrier();               /* rank 0 has sent: the data may be here already */
    early = view();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    v = view();
    MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  } else {
    invisible_barrier();
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    v = view();
  }
  check_hb(0, before, 1, early, 0, "an Irecv orders nothing before its Wait");
  check_hb(0, before, 1, v, 1, "send -> Wait of the matching Irecv");
  check_hb(0, before, 2, v, 1, "chain 0 -> 1 -> 2");
  check_hb(0, after, 2, v, 0, "nothing after the send is ordered");
  check_hb(2, before, 0, view(), 0, "no edge backwards");
  return clk_finish();
}
