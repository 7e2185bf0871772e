/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 32 28
 */
/* Fence epochs in a ring: every rank puts into the next rank's window and reads what the
 * previous one put after the closing fence, then rewrites it before the next. Each fence's
 * acknowledged COMPLETEs cross: while a rank waits for its target's ACK it applies the
 * COMPLETE from its own origin itself (core/chan.h, hrace__chan_wait_help), so the records
 * must be in the shadow before the fence returns whichever thread applied them. Twin of fence_self_ring_norace: in
 * one iteration rank 1 reads its slot inside the epoch, after rank 0 said it had issued its
 * put into it. */
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
    if (it == 11 && rank == 0) MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    if (it == 11 && rank == 1) {
      MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      s += x[it % 2];
    }
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
