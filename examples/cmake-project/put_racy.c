/* Racy: rank 0's MPI_Put into rank 1's window (line 14) and rank 1's load of it (line 17) are
   not ordered by any synchronisation: the barrier comes after the load. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 42, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else {
    s = *x;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
