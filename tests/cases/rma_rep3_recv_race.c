/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 29
 * count: 29 29 3
 */
/* A repeated call's key holds the version of the issuing context's clock (docs/rma.md,
 * "Repeated operations"), which every change of the clock renews. Rank 0 gets into one buffer
 * from one line four times, receives a message from rank 1 (its clock joins rank 1's: no tick of
 * its own, no completion), and gets four times more, all in flight at once: the first two calls
 * of each round go the whole way and race with the gets before them (three occurrences). With
 * the receive's join leaving the version as it was, the second round would be repeats of the
 * first: one occurrence. */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank, *x, token = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 4; i++) MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      if (r == 0) MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Win_unlock_all(win);
  } else {
    MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
