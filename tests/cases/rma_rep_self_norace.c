/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Repeated accumulates to the issuing process itself (docs/rma.md, "Repeated operations"):
 * their records are applied at the issue, and from the third identical call on a call is a
 * repeat. A flush completes the first round; the second round, the same calls from the same
 * line with the same clock, must not count as repeats of the first. Race-free twin of
 * rma_rep_self_race: the second round is flushed too before the store after it. */
#include <mpi.h>

long one = 1;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 8; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 6; i++)
        for (int d = 0; d < 4; d++)
          MPI_Accumulate(&one, 1, MPI_LONG, 0, d, 1, MPI_LONG, MPI_SUM, win);
      if (r == 0) MPI_Win_flush(0, win), x[2] = 7;   /* completed: no race */
    }
    MPI_Win_flush(0, win);
    x[2] = 9;   /* the second round is complete */
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
