/* hrace-test
 * ranks: 3
 * expect: no-race
 * env: HRACE_OPTIONS=wire=always
 */
/* The twin of wire_ibarrier_race: rank 0 puts before it sends, and rank 1 loads after the
 * receive, which it completes before its own Ibarrier: the message, encoded against the
 * blocking barrier before the Ibarrier, orders the put before the load. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0;
  MPI_Win win;
  MPI_Request rb;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Ibarrier(MPI_COMM_WORLD, &rb);
  if (rank == 0) {
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Send(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(&t, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    x = base[0];
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, t);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
