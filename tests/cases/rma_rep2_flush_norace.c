/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A repeated call's key holds the generation, which every completion changes (docs/rma.md,
 * "Repeated operations"). Rank 0 gets into one buffer from one line four times, completes them
 * locally (MPI_Win_flush_local: the buffer is free again, the clock need not change) and gets four
 * times more: in each round the first two calls go the whole way, the second racing with the first
 * (two occurrences). With the generation left out of the key, the second round would be repeats of
 * the first: one occurrence.
 * Race-free twin of rma_rep2_flush_race: the same calls are accumulates from the buffer (two of
 * them never race: repeats from the second call on), and the buffer is stored to after a local
 * completion. */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 4; i++)
        MPI_Accumulate(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
      if (r == 0) MPI_Win_flush_local(1, win);
    }
    MPI_Win_flush_local(1, win);
    buf = 2;
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
