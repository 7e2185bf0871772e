/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 28 36
 */
/* The twin of rma_lazy_flush_norace: the last put is flushed only after rank 0's message has
 * left, so rank 1's load, told through rank 2, is not ordered after it. The completions of the
 * 299 puts before it are flushed lazily and must not hide it (nor be reported: those bytes are
 * the other three ints). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, token = 0, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 4; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    int last = 7;
    for (int i = 0; i < 299; i++) {
      MPI_Put(&i, 1, MPI_INT, 1, 1 + i % 3, 1, MPI_INT, win);
      MPI_Win_flush(1, win);
    }
    MPI_Put(&last, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    MPI_Win_flush(1, win);
  } else if (rank == 2) {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s = x[0] + x[1] + x[2] + x[3];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
