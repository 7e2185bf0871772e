/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2 -fno-tree-vectorize -fno-tree-slp-vectorize
 */
/* Loop hoisting (docs/access.md). Two lines in one loop that together store every element, each alone every other one:
 * p[2i] on one line, p[2i+1] on the next, for i < n, while rank 0 puts element 33 (odd: the
 * second line's). A range is reported at one line, so the two lines are never merged into one
 * range (it would name the first line for the second's bytes); each alone is strided and stays
 * per access. n = 20 (race: the second line stores element 33), 16 (no race). Built without
 * the vectorisers, which would merge the two lines' stores into one of a single line.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_lines_race.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */

__attribute__((noinline)) static void pairs(double *p, int n) {
  for (int i = 0; i < n; i++) {
    p[2 * i] = i; /* not hoisted */
    p[2 * i + 1] = -i; /* not hoisted */
  }
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
    MPI_Put(src, 1, MPI_DOUBLE, 1, 33, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    pairs(area, n_rt);
    printf("rank 1: %g\n", area[2]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
