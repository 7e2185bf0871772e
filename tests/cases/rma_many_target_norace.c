/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Many identical accumulates in one epoch, all but the first two elided at the origin (issue 22
 * item 7, docs/rma.md "Repeated operations"), and a plain load of the same element at the
 * target after the epoch and a barrier: ordered after all of them (race-free twin of
 * rma_many_target_race). */
#include <mpi.h>

long got;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank;
  long *x, one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 1000; i++)
      MPI_Accumulate(&one, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) got = x[0];   /* after the unlock and the barrier */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return (int)(got & 0);
}
