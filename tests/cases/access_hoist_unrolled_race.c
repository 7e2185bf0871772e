/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 40 25
 */
/* Loop hoisting (docs/access.md): a row loop with a loop-carried value (the wavefront kernel's
 * row[c] = prev[c] + row[c-1] - prev[c-1]), which clang -O2 unrolls by two after a prologue of
 * one iteration when the first column is a runtime value: the unrolled loop's count is only
 * known through its induction variable's no-wrap flags, which ScalarEvolution uses only once
 * the pass has said that the access callbacks return (before that, nothing was hoisted here). Rank 1 runs the loop over columns 1..41 of row 1 of its window while rank 0 puts one
 * element of that row, unordered: column 41 (the last the loop writes) in the race twin, 42
 * (one past it, never touched: a range one iteration too long would report it) in the no-race
 * twin. Twin: access_hoist_unrolled_norace.c. */
#include <mpi.h>
#include <stdio.h>

enum { LD = 64 };
static double area[2 * LD];   /* rank 1's window: two rows */
static volatile int skip_rt, n_rt;   /* the bounds are runtime values */

__attribute__((noinline)) static void row_sweep(double *row, int skip, int w) {
  double *prev = row - LD;
  int c0 = skip ? 2 : 1;   /* a runtime first column known to be positive, as in the kernel */
  for (int c = c0; c <= w; c++) row[c] = prev[c] + row[c - 1] - prev[c - 1]; /* hoisted */
}

int main(int argc, char **argv) {
  int rank;
  double one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  skip_rt = 0;
  n_rt = 41;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 1, LD + 41, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    row_sweep(area + LD, skip_rt, n_rt);
    printf("rank 1: %g\n", area[LD + 41]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
