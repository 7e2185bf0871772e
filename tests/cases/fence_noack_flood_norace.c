/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* As fence_noack_lock_norace, with a backlog: rank 1 puts into each of N ints of rank 0's
 * window, one put each, x[0] last, so that a few hundred kilobytes of its records may still
 * wait in rank 0's socket when the NOSUCCEED fence's all-reduce ends; rank 2's lock request,
 * put into x[0] and unlock then arrive on another connection, which rank 0 reads in turn with
 * rank 1's. Rank 0 holds rank 2's messages back until it has applied all of rank 1's and left
 * the fence (src/rma/progress.c, "Fence generations"); applied in arrival order, rank 1's put
 * into x[0] would be judged against rank 2's later one (a race between ordered puts). Rank 0
 * reads x[0] after a barrier that follows rank 2's unlock. Twin: fence_noack_flood_race. */
#include <mpi.h>
#include <stdio.h>

#define N 4096
#define ITERS 4

int main(int argc, char **argv) {
  int rank, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < N; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < ITERS; it++) {
    int v = it + rank;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank == 1)
      for (int i = N - 1; i >= 0; i--) MPI_Put(&v, 1, MPI_INT, 0, i, 1, MPI_INT, win);
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
