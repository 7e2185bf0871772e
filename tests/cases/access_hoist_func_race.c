/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 35 21
 */
/* Loop hoisting (docs/access.md). Window memory reached through a pointer passed to a function (the loop cannot see that
 * it is a window), with a trip count that is a runtime value. Rank 0 puts elements 32-39 of rank
 * 1's window while rank 1's loop stores to elements 0..n-1: n = 33 (race), 32 (no race).
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_func_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */

__attribute__((noinline)) static void fill(double *p, int n) {
  for (int i = 0; i < n; i++) p[i] = i; /* hoisted */
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 33;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    fill(area, n_rt);
    printf("rank 1: %g\n", area[3]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
