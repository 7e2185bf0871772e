/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Seed 000 Fig. 1 at clock level: an Irecv posted before a barrier is not ordered by the
 * barrier. Rank 2 sends after the barrier; rank 1's clock learns that send only at the Wait,
 * and the barrier orders only what came before it. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  stamp_t pre = stamp(), send = pre;
  view_t mid = view(), end = mid;
  if (rank == 1) MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) {
    send = stamp();
    MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  invisible_barrier();
  if (rank == 1) {
    mid = view();
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    end = view();
  }
  check_hb(0, pre, 1, mid, 1, "barrier: rank 0 before it -> rank 1 after it");
  check_hb(2, send, 1, mid, 0, "rank 2's send after the barrier is not known before the Wait");
  check_hb(2, send, 1, end, 1, "... and is at the Wait that completes the Irecv");
  return clk_finish();
}
