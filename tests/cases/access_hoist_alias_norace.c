/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loop hoisting (docs/access.md). Two pointers into the same window, one 16 elements past the other: b[i] = 2 * a[i] for
 * i < n stores to elements 16 .. 15 + n while rank 0's put of elements 32-39 is in flight:
 * n = 17 (race: element 32 is b[16]), 16 (no race).
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_alias_race.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */

__attribute__((noinline)) static void twice(double *b, const double *a, int n) {
  for (int i = 0; i < n; i++) b[i] = 2 * a[i]; /* hoisted */
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 16;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    twice(area + 16, area, n_rt);
    printf("rank 1: %g\n", area[17]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
