/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loop hoisting (docs/access.md). A strided loop (every other element) is not one contiguous range: rank 1 stores to the
 * even elements 0, 2, .., 38 while rank 0 puts one element: 31 in the no-race twin, a gap the
 * loop never touches (a range check over [0, 38] would report it), 30 in the race twin.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_strided_race.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */

__attribute__((noinline)) static void evens(double *p, int n) {
  for (int i = 0; i < n; i++) p[2 * i] = i; /* not hoisted */
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 20;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 31, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    evens(area, n_rt);
    printf("rank 1: %g\n", area[2]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
