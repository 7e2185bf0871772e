/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 33 41
 * mpi: openmpi
 * env: OMPI_MCA_osc=ucx
 */
/* Twin of rma_flush_busy_norace: in the last round rank 2 receives rank 0's message only after
 * its own put, so the put into rank 1's x[0] is not ordered with rank 0's fetch-and-op there,
 * both flushed to a rank 1 that waits in MPI_Recv. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 2000

int main(int argc, char **argv) {
  int rank, token = 0;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  const long one = 1;
  for (int r = 1; r <= ROUNDS; r++) {
    if (rank == 1) {
      MPI_Recv(&token, 1, MPI_INT, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
      long prev, old, next = r, cmp = r - 1;
      if (r > 1) MPI_Recv(&token, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Fetch_and_op(&one, &prev, MPI_LONG, 1, 0, MPI_SUM, win);
      MPI_Win_flush(1, win);
      MPI_Compare_and_swap(&next, &cmp, &old, MPI_LONG, 1, 1, win);
      MPI_Win_flush(1, win);
      MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    } else {
      long v = -r;
      if (r < ROUNDS) MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
      MPI_Win_flush(1, win);
      if (r == ROUNDS) MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
      if (r < ROUNDS) MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("%ld %ld\n", x[0], x[1]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
