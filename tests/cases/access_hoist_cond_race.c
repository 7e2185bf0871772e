/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 43 26
 */
/* Loop hoisting (docs/access.md). A conditional store in a loop: rank 1 copies vals[i] into p[i] only where mask[i] is set,
 * for i < 40, while rank 0's put of elements 32-39 is in flight; mask is set for i < 32 and, in
 * the race twin, for i = 35 too. The load of mask runs on every iteration (hoisted); the store
 * does not and may not be hoisted: a range over all 40 elements would overlap the put.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_cond_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */
static char mask[64];
static double vals[64];

__attribute__((noinline)) static void masked_copy(double *p, int n) {
  for (int i = 0; i < n; i++) {
    char m = mask[i]; /* hoisted */
    if (m) p[i] = vals[i]; /* not hoisted */
  }
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 40;
  for (int i = 0; i < 32; i++) mask[i] = 1;
  if (rank == 1) mask[35] = 1;   /* 0 in the no-race twin: already set */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    masked_copy(area, n_rt);
    printf("rank 1: %g\n", area[3]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
