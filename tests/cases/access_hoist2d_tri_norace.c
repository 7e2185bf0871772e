/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * A triangular nest: row i's inner loop writes its columns 0 .. i-1
 * (a length that depends on i: the inner loop's range is hoisted out of the inner loop only,
 * one call per row), the row loop the diagonal element (i, i) (strided, hoisted out of the row
 * loop). Rank 0 puts row 3's column 1 (written by the inner loop) in the race twin, row 3's
 * column 5 (beyond row 3's triangle, inside later rows') in the no-race twin.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_tri_race.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void lower(double *p, long rows) {
  for (long i = 0; i < rows; i++) {
    for (long j = 0; j < i; j++) p[i * W + j] = j; /* hoisted, not hoisted outer */
    p[i * W + i] = 1; /* hoisted outer */
  }
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  rows_rt = 8;
  n_rt = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 3 * W + 5, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    lower(area, rows_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
