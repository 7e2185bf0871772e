/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 44 27
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * A call in the inner loop: each row first waits at a barrier (the
 * inner loop, n = 1 call per row), then writes its column 0. The first barrier matches rank
 * 0's barrier after its unlock, so in the no-race twin every store follows the put into row 0's
 * column 0; the stores must stay in the row loop (a check before it would report a race). In
 * the race twin the row's store comes before the inner loop.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_call_norace.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void sync_rows(double *p, long rows, long n) {
  for (long i = 0; i < rows; i++) {
    p[i * W] = i; /* not hoisted outer */
    for (long j = 0; j < n; j++) MPI_Barrier(MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  rows_rt = 2;
  n_rt = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    sync_rows(area, rows_rt, n_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
