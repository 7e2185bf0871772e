/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * A row loop around a vectorised inner loop, as in a stencil's
 * row update: rank 1 computes 16 rows of n = 7 columns of its window with a row stride of
 * n + 1 (both runtime values): the edge elements o[0] and o[n-1] are single accesses of the
 * row loop, the inner columns one range per row; all become strided calls before the row loop.
 * Rank 0 puts one element: row 3's column 0 in the race twin, row 3's padding column 7 (never
 * written; a contiguous range over the rows would cover it) in the no-race twin. (The row
 * offsets are size_t: a row index multiplied in int, with no known bound, is no affine
 * recurrence for ScalarEvolution, and such a row's checks stay in the row loop.)
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_edge_race.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void sweep(double *restrict out, const double *restrict in,
                                          int rows, int n) {
  for (int i = 0; i < rows; i++) {
    double *o = out + (size_t)i * (n + 1);
    const double *c = in + (size_t)i * (n + 1);
    o[0] = 0.5 * c[0] + c[1]; /* hoisted outer */
    for (int j = 1; j < n - 1; j++) o[j] = c[j] + 0.25 * (c[j - 1] + c[j + 1]); /* hoisted outer */
    o[n - 1] = 0.5 * c[n - 1] + c[n - 2]; /* hoisted outer */
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
  n_rt = 7;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 3 * W + 7, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    sweep(area, grid, rows_rt, n_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
