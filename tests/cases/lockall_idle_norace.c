/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* lock_all with no operations to some targets (docs/rma.md, "Synchronisation", "Unlocks
 * without acknowledgement"): unlock_all returns those tokens with an UNLOCK that wants no reply.
 * Every rank opens a lock_all epoch; only rank 0 issues anything (a put to x at rank 1). After a
 * barrier, rank 2 takes an exclusive lock of every rank in turn (each is granted only once every
 * shared lock there was returned: lost UNLOCKs would hang here) and gets x from rank 1:
 * ordered after rank 0's put by the barrier. */
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
