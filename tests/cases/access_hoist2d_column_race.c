/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 45 28
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * A strided column with a constant stride: the row loop writes
 * column 2 of each of 16 rows of rank 1's window (stride W doubles) and runs an inner loop over
 * private memory; the column becomes one strided call before the row loop. Rank 0 puts row 5's
 * column 2 in the race twin, row 5's column 3 (between two of the column's elements) in the
 * no-race twin.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_column_norace.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void column(double *restrict p, double *restrict tmp, int rows,
                                           int n) {
  for (int i = 0; i < rows; i++) {
    p[i * W + 2] = i; /* hoisted outer */
    for (int j = 0; j < n; j++) tmp[j] += p[i * W + 2] * j; /* hoisted */
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
  n_rt = 8;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 5 * W + 2, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    column(area, grid, rows_rt, n_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
