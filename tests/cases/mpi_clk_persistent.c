/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Persistent requests: each MPI_Start of a send signals with the clock of that start, each
 * completion of the receive joins that start's clock, never a later one. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  if (rank == 0) MPI_Send_init(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
  else MPI_Recv_init(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &r);
  for (int it = 0; it < 3; it++) {
    stamp_t pre = stamp(), after = pre;
    view_t v = view();
    if (rank == 0) {
      x = it;
      MPI_Start(&r);
      after = stamp();
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Start(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      v = view();
      if (x != it) printf("not ok - data of iteration %d: got %d\n", it, x), clk_failed = 1;
    }
    check_hb(0, pre, 1, v, 1, "MPI_Start of a persistent send -> Wait of a persistent receive");
    check_hb(0, after, 1, v, 0, "nothing after that start");
  }
  MPI_Request_free(&r);
  return clk_finish();
}
