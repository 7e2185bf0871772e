/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* A shared unlock with records at its one target goes out unacknowledged (docs/rma.md,
 * "Synchronisation", "Unlocks without acknowledgement"); the clock it deposits there is joined
 * by the target's next exclusive locker. Rank 0 puts to x at rank 1 under a shared lock and
 * raises a flag there (an atomic accumulate); rank 2 polls the flag under exclusive locks of
 * rank 1, and once it is set puts to x too: its epoch follows rank 0's (an exclusive lock is
 * granted only after every shared one is returned), and so does its put. */
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
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
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
