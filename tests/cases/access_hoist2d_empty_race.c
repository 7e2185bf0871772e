/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 46 30
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * An inner loop that runs no iteration: with n = 2 the row loop writes
 * columns 0 and 1 (o[0] and o[n-1]) and its inner loop over columns 1 .. n-2 none; the inner
 * loop's range, hoisted out of the row loop under the condition that the inner loop runs,
 * must check nothing. Rank 0 puts row 3's column 1 (o[n-1]) in the race twin, row 3's column 2
 * in the no-race twin.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_empty_norace.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void edges(double *out, int rows, int n) {
  for (int i = 0; i < rows; i++) {
    double *o = out + (size_t)i * W;
    o[0] = i; /* hoisted outer */
    for (int j = 1; j < n - 1; j++) o[j] = j; /* hoisted outer */
    o[n - 1] = -i; /* hoisted outer */
  }
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  rows_rt = 16;
  n_rt = 2;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 3 * W + 1, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    edges(area, rows_rt, n_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
