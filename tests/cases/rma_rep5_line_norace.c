/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_rep5_line_race, race-free: accumulates (which read their origin buffer only)
 * instead of gets into one buffer, and rank 1 stores to x[0] only after the barrier that
 * follows rank 0's epoch, so both lines' accumulates are ordered before it.
 *
 * The hot repeat's code address is the wrapper's own return address (rma/ops.c hot_t), compared
 * as the wrapper finds it. Rank 0 accumulates into x[0] three times from one line (the third a
 * hot repeat), then once from the next line with the same arguments, in the same activation of
 * main (the same shadow stack): that call is a first one and goes the whole way. */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, *x, one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 4; i++) {
      if (i < 3)
        MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
      else MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) x[0] = 5;   /* after rank 0's epoch: ordered by the barrier */
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
