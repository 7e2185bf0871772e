/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 27 28
 */
/* One call site, one displacement, two origin buffers (docs/rma.md, "Repeated operations": a
 * call repeats an earlier one only with the same buffers). Rank 0 accumulates from `a` six
 * times, then once from `b`, from the same line with the same target element and clock; the
 * store to `b` while that accumulate is in flight races with it at the origin buffer. */
#include <mpi.h>

long a = 1, b = 2;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    long *from[7] = { &a, &a, &a, &a, &a, &a, &b };
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 7; i++)
      MPI_Accumulate(from[i], 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
    b = 3;   /* the accumulate from b is in flight */
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
