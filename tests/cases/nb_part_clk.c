/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: mpich
 */
/* A round of a partitioned pair orders like a message from the sender's last MPI_Pready to
 * the completion of the receiver's round: what rank 0 did before any of its Preadys is known
 * to rank 1 after its MPI_Wait (not before it, nor after MPI_Parrived alone); what rank 0
 * does after its last Pready is not. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, flag = 0, buf[4] = { 0 };
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  if (rank == 0) MPI_Psend_init(buf, 2, 2, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  else MPI_Precv_init(buf, 2, 2, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  for (int round = 0; round < 2; round++) {
    stamp_t pre = stamp(), mid = pre, after = pre;
    view_t arrived = view(), done = arrived;
    MPI_Start(&r);
    if (rank == 0) {
      pre = stamp();
      MPI_Pready(0, r);
      mid = stamp();
      MPI_Pready(1, r);
      after = stamp();
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      flag = 0;
      while (!flag) MPI_Parrived(r, 0, &flag);
      arrived = view();
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      done = view();
    }
    check_hb(0, pre, 1, done, 1, "before the first MPI_Pready -> after the receiver's Wait");
    check_hb(0, mid, 1, done, 1, "between the Preadys -> after the receiver's Wait");
    check_hb(0, after, 1, done, 0, "after the last MPI_Pready: not ordered");
    check_hb(0, pre, 1, arrived, 0, "MPI_Parrived alone orders nothing");
  }
  MPI_Request_free(&r);
  return clk_finish();
}
