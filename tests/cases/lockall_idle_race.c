/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 25 26
 */
/* lock_all with no operations to some targets (docs/rma.md, "Synchronisation", "Unlocks
 * without acknowledgement"): unlock_all returns those tokens with an UNLOCK that wants no reply.
 * Racing twin of lockall_idle_norace: rank 2 also gets x from rank 1 inside its own lock_all
 * epoch, which rank 0's (shared too) does not order: that get races with rank 0's put (the
 * get after the barrier does not). */
#include <mpi.h>

int val = 7, got;   /* globals: clang 14 leaves stores to stack variables uninstrumented */

int main(int argc, char **argv) {
  int rank, size, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) MPI_Put(&val, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  if (rank == 2) MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2)
    for (int t = 0; t < size; t++) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);
      if (t == 1) MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Win_unlock(t, win);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
