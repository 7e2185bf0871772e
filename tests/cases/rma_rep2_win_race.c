/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 29
 * count: 29 29 2
 */
/* A repeated call's key holds the generation, which a completion and a window's release change
 * (docs/rma.md, "Repeated operations"). Rank 0 gets into one buffer from one line four times in
 * one window's epoch, frees the window, makes a new one (Open MPI may give it the same handle) and
 * does the same again: in each round the first two calls go the whole way, the second racing with
 * the first (two occurrences). Making and freeing a window are collective, so the clock moves too:
 * with both the generation and the clock left out of the key, the second round would be repeats of
 * the first (one occurrence; rma_rep2_flush_race has the generation alone change). */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int r = 0; r < 2; r++) {
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
    x[0] = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Win_lock_all(0, win);
      for (int i = 0; i < 4; i++) MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
  }
  MPI_Finalize();
  return 0;
}
