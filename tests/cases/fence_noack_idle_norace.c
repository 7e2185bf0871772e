/* hrace-test
 * ranks: 4
 * expect: no-race
 */
/* A fence's COMPLETEs go out unacknowledged and the fence's all-reduce tells each target how
 * many to expect (src/rma/epoch.c, fence_exchange): rank 0, which issues nothing and so has
 * nothing of its own to complete, must still apply every record sent to it before its fence
 * returns, reading its channel itself. Three origins put into it, four ranks on two cores;
 * rank 0 reads and rewrites each slot right after the closing fence, before the next. Twin:
 * fence_noack_idle_race (rank 0 reads one slot before the fence). */
#include <mpi.h>
#include <stdio.h>

#define EPOCHS 40

int main(int argc, char **argv) {
  int rank, size, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < size; i++) x[i] = 0;
  MPI_Win_fence(0, win);
  for (int it = 0; it < EPOCHS; it++) {
    int v = it * size + rank;
    if (rank != 0) MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 0)
      for (int i = 1; i < size; i++) {
        s += x[i];
        x[i] = 0;
      }
    MPI_Win_fence(0, win);
  }
  MPI_Win_fence(0, win);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
