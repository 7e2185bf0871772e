/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loop hoisting to the outer loop (docs/access.md, "Loop nests").
 * An MPI call in the row loop itself: each row waits at a barrier,
 * then writes its column 0 and, in an inner loop, columns 1 .. n-1. The first barrier matches
 * rank 0's barrier after its unlock, so in the no-race twin every store follows the put into
 * row 0's column 0; the row loop must not be hoisted (its inner loop is). In the race twin
 * the row's column 0 store comes before the barrier.
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass must
 * ("hoisted", "hoisted outer": out of the outer loop too) and must not ("not hoisted", "not
 * hoisted outer") turn into range checks (tests/tools/test_hoist.py).
 * Twin: access_hoist2d_mpicall_race.c. */
#include <mpi.h>
#include <stddef.h>

#define W 8                    /* row stride of the grid, in doubles */
static double area[16 * W];    /* rank 1's window: 16 rows */
static double grid[16 * W];    /* rank 1's private input */
static volatile int rows_rt, n_rt;   /* sizes are runtime values */

__attribute__((noinline)) static void rows_after(double *p, long rows, long n) {
  for (long i = 0; i < rows; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    p[i * W] = i; /* not hoisted outer */
    for (long j = 1; j < n; j++) p[i * W + j] = j; /* hoisted, not hoisted outer */
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
  n_rt = 6;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    rows_after(area, rows_rt, n_rt);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
