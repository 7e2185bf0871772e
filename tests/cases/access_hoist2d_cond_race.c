/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 46 29
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * A block of the row loop under a condition that the loop does not
 * change (a runtime flag): each of 16 rows writes its column 0, its column 2 if the flag is
 * set, and runs an inner loop over private memory. The column-2 store is hoisted out of the row
 * loop as a strided call that checks its rows only when the flag is set. The flag is set in the
 * race twin only; rank 0 puts row 3's column 2 in both twins.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_cond_norace.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void flagged(double *restrict p, double *restrict tmp, long rows,
                                            int flag) {
  for (long i = 0; i < rows; i++) {
    p[i * W] = i; /* hoisted outer */
    if (flag) p[i * W + 2] = -i; /* hoisted outer */
    for (long j = 0; j < rows; j++) tmp[j] += i; /* hoisted, hoisted outer */
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
  n_rt = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 3 * W + 2, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    flagged(area, grid, rows_rt, n_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
