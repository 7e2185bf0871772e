/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Fence epochs in a ring: every rank puts into the next rank's window and reads what the
 * previous one put after the closing fence, then rewrites it before the next. Each fence's
 * acknowledged COMPLETEs cross: while a rank waits for its target's ACK it applies the
 * COMPLETE from its own origin itself (core/chan.h, hrace__chan_wait_help), so the records
 * must be in the shadow before the fence returns whichever thread applied them. Twin:
 * fence_self_ring_race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Win_fence(0, win);
  for (int it = 0; it < 30; it++) {
    int v = it + rank;
    MPI_Put(&v, 1, MPI_INT, next, it % 2, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    s += x[it % 2];
    x[it % 2] = 0;
  }
  MPI_Win_fence(0, win);
  printf("%d %d\n", s, prev);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
