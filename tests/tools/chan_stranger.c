/* For test_chan_stranger.py: two ranks with a window, busy for a while (the test connects to
 * their hrace sockets meanwhile), then a locked put and a barrier: the job must still work. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int rank, *x, v = 7, got = -1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  if (rank == 0) printf("ready\n"), fflush(stdout);
  sleep(3);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* Read back with MPI_Get: on this machine's MPICH 4.0.2 (ch4:ucx) a put never shows in the
   * target's own loads, even after a fence or Win_sync, though a Get sees it. */
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    printf("got %d\n", got);
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
