/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 35 35
 * count: 35 35 3
 */
/* A repeated call's key holds the version of the issuing context's clock (docs/rma.md,
 * "Repeated operations"), which every change of the clock renews. Rank 0 gets into one buffer
 * from one line four times, then MPI_Win_wait on a second window joins the clock of rank 1's
 * MPI_Win_complete there (a join alone: no tick of rank 0's own, no completion of its gets),
 * and rank 0 gets four times more, all in flight at once: the first two calls of each round go
 * the whole way and race with the gets before them (three occurrences). With the join leaving
 * the version as it was, the second round would be repeats of the first: one occurrence. */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank, *x, *y, peer;
  MPI_Win win, win2;
  MPI_Group world, other;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &y, &win2);
  x[0] = 1;
  peer = 1 - rank;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &peer, &other);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_post(other, 0, win2);
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 4; i++) MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      if (r == 0) MPI_Win_wait(win2);
    }
    MPI_Win_unlock_all(win);
  } else {
    MPI_Win_start(other, 0, win2);
    MPI_Win_complete(win2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Group_free(&other);
  MPI_Group_free(&world);
  MPI_Win_free(&win2);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
