/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The backward edge of a synchronous send: rank 1 puts into rank 0's window and unlocks before
 * it posts the receive that rank 0's MPI_Ssend matches; rank 0's load after MPI_Ssend returns
 * is ordered after the put. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MPI_Recv(&t, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Ssend(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    x = base[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
