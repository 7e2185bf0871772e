/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 36 22
 */
/* Loop hoisting (docs/access.md). The window (doubles) accessed through a cast pointer (int) at an offset, in a loop that
 * runs downwards: stores to ints [16, 16 + 2 * n) of the window, i.e. doubles 8 .. 8 + n - 1,
 * last first, while rank 0's put of doubles 32-39 is in flight: n = 25 (race), 24 (no race).
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_cast_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */

__attribute__((noinline)) static void down(void *w, int n) {
  int *q = (int *)w + 16;
  for (int i = 2 * n - 1; i >= 0; i--) q[i] = i; /* hoisted */
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 25;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    down(area, n_rt);
    printf("rank 1: %g\n", area[9]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
