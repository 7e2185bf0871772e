/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A repeated call's key holds the version of the issuing context's clock (docs/rma.md,
 * "Repeated operations"), which every change of the clock renews. Race-free twin of
 * rma_rep3_recv_race: rank 0 gets four times, receives a message from rank 1, and gets four
 * times more, each round into a buffer of its own, and stores to the buffers only after the
 * epoch: the repeats of each round are skipped, and nothing is reported. */
#include <mpi.h>

int buf[2];   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank, *x, token = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 4; i++) MPI_Accumulate(&buf[r], 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
      if (r == 0) MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Win_unlock_all(win);
    buf[0] = buf[1] = 2;
  } else {
    MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
