/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* A fence epoch followed by a lock epoch on the same window: rank 1 puts into x[0] of rank 0,
 * a NOSUCCEED fence completes it, and rank 2 then locks rank 0, puts into the same int and
 * unlocks. Rank 2's lock request and record may reach rank 0 before rank 1's record of the
 * fence epoch is applied there (the fence's COMPLETEs are not acknowledged): rank 0 holds
 * them back until it has left the fence (src/rma/progress.c, "Fence generations"), so rank
 * 1's write is not judged against rank 2's later one. Rank 0 reads after a barrier that
 * follows rank 2's unlock: no race. Twin: fence_noack_lock_race. */
#include <mpi.h>
#include <stdio.h>

#define ITERS 20

int main(int argc, char **argv) {
  int rank, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < ITERS; it++) {
    int v = it + rank;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank == 1) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 2) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
      MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) s += x[0];
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
