/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 27 30
 */
/* Identical accumulates from one buffer, a local completion, then the same accumulates again
 * (issue 22 item 7, docs/rma.md "Repeated operations"): the second round must not count as
 * repeats of the first, which flush_local completed. The store after the second round races
 * with it at the origin buffer; the store between the rounds does not. */
#include <mpi.h>

long buf = 1;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

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
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 4; i++)
        MPI_Accumulate(&buf, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
      if (r == 0) MPI_Win_flush_local(1, win), buf = 2;
    }
    buf = 3;   /* the second round is in flight */
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
