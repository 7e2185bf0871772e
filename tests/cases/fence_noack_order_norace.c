/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Records of two fence epochs at one target, from two origins: rank 1 puts into x[0] of rank 0
 * in one epoch, rank 2 into the same int in the next. Rank 2 may send its put as soon as it
 * has left the fence's all-reduce, while rank 0 has yet to apply rank 1's (fence COMPLETEs
 * are not acknowledged: src/rma/epoch.c), and rank 0 may read rank 2's connection first.
 * Applied in that order, rank 1's older write would be judged against rank 2's newer one (a
 * race between two ordered puts) and overwrite it in the shadow; rank 0 holds the newer
 * epoch's messages back until it has left the fence (src/rma/progress.c, "Fence
 * generations"). Rank 0 reads after the fence that completes rank 2's put: no race. Twin:
 * fence_noack_order_race (rank 0 reads before it: a race with rank 2's put only). */
#include <mpi.h>
#include <stdio.h>

#define ITERS 30

int main(int argc, char **argv) {
  int rank, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Win_fence(0, win);
  for (int it = 0; it < ITERS; it++) {
    int v = it + rank;
    if (rank == 1) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 2) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 0) s += x[0];
    MPI_Win_fence(0, win);
  }
  MPI_Win_fence(0, win);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
