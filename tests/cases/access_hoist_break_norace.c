/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loop hoisting (docs/access.md). A loop with an early exit may not be checked for its whole trip count: rank 1 reads p[i]
 * and stores 1 to it until it finds a negative element, for i < n = 40, while rank 0's put of
 * elements 32-39 is in flight. No-race twin: p[30] is negative, the loop stops well before the
 * put's elements, and a range check for all 40 iterations would be a false positive. Race
 * twin: p[35], so the loop reads 32-35 and stores 32-34.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_break_race.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */

__attribute__((noinline)) static int until_negative(double *p, int n) {
  int i;
  for (i = 0; i < n; i++) {
    if (p[i] < 0) break; /* not hoisted */
    p[i] = 1; /* not hoisted */
  }
  return i;
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 40;
  if (rank == 1) area[30] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    printf("rank 1: %d\n", until_negative(area, n_rt));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
