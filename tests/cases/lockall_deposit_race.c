/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 25 35
 */
/* An unlock_all with records at several targets (docs/rma.md, "Synchronisation", "Unlocks
 * without acknowledgement"). Racing twin of lockall_deposit_norace: rank 1 polls the flag under
 * shared locks of itself, which do not join what rank 0's shared unlock deposited there (it
 * may see the flag while rank 0 still holds its locks): its get of x races with rank 0's put. */
#include <mpi.h>
#include <stddef.h>

int one = 1, val = 7, seen, got;   /* globals: clang 14 leaves stores to stack variables uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    MPI_Put(&val, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock_all(win);
  } else if (rank == 1) {
    while (!seen) {
      MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
      MPI_Fetch_and_op(NULL, &seen, MPI_INT, 1, 1, MPI_NO_OP, win);
      MPI_Win_unlock(1, win);
    }
    MPI_Win_lock(MPI_LOCK_SHARED, 2, 0, win);
    MPI_Get(&got, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
    MPI_Win_unlock(2, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
