/* hrace-test
 * ranks: 2
 * expect: race
 * env: HRACE_CC_HOIST=0
 * pair: 32 37
 */
/* One access at a time (no loop hoisting), alternating between two windows: each access
 * finds its window in the thread's cache of the last two ranges (src/access/tsan.c,
 * hrace__access_slow), which swaps them on every switch. Rank 1 copies b into a element by
 * element while rank 0 puts into b[700] in the same epoch: the race must be found in b's
 * shadow, at b's offset, and nothing in a's. The twin, win_alt_norace, fences before the
 * copy. */
#include <mpi.h>
#include <stdio.h>

#define N 1024

int main(int argc, char **argv) {
  int rank;
  double *a, *b, v = 1;
  MPI_Win wa, wb;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &wb);
  for (int i = 0; i < N; i++) b[i] = i;
  MPI_Win_fence(0, wa);
  MPI_Win_fence(0, wb);
  if (rank == 1) {
    for (int r = 0; r < 3; r++)
      for (int i = 0; i < N; i++)
        a[i] = b[i] + r;
  }
  if (rank == 0) {
    for (int i = 0; i < N; i++)
      a[i] = 0;
    MPI_Put(&v, 1, MPI_DOUBLE, 1, 700, 1, MPI_DOUBLE, wb);
  }
  MPI_Win_fence(0, wb);
  MPI_Win_fence(0, wa);
  printf("%g\n", rank == 1 ? a[700] + b[700] : 0.0);
  MPI_Win_free(&wb);
  MPI_Win_free(&wa);
  MPI_Finalize();
  return 0;
}
