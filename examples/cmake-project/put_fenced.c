/* Race-free: rank 0 puts into rank 1's window inside a fence epoch, rank 1 reads after the
   closing fence, which orders the put before the load. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 42, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  MPI_Win_fence(0, win);
  if (rank == 0)
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  if (rank == 1)
    s = *x;
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
