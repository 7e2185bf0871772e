/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 26 35
 */
/* A shared unlock with records at its one target goes out unacknowledged (docs/rma.md,
 * "Synchronisation", "Unlocks without acknowledgement"); the clock it deposits there is joined
 * by the target's next exclusive locker only. Racing twin of lockall_excl_norace: rank 2 polls
 * the flag under shared locks, which rank 0's shared epoch does not order (rank 2 may see the
 * flag while rank 0 still holds its lock): its put races with rank 0's. */
#include <mpi.h>
#include <stddef.h>

int one = 1, val = 7, seen;   /* globals: clang 14 leaves stores to stack variables uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&val, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Accumulate(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(1, win);
  } else if (rank == 2) {
    for (int done = 0; !done;) {
      MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
      MPI_Fetch_and_op(NULL, &seen, MPI_INT, 1, 1, MPI_NO_OP, win);
      MPI_Win_flush(1, win);
      if (seen) {
        MPI_Put(&val, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        done = 1;
      }
      MPI_Win_unlock(1, win);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
