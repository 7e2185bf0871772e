/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: openmpi
 */
/* Open MPI only: a target that spins on its window without calling MPI never sees MPICH's
 * puts (with or without hrace), so on MPICH the job never ends. */
/* Twin of rma_poll_race with the annotations of include/hrace.h (seed 001 Sec. IV-F): rank 0
 * signals the flag's resource after the data is complete and before it sets the flag; rank 1
 * waits on it after seeing the flag. The data is then ordered, and the flag, being a declared
 * synchronisation variable, is not checked. */
#include <hrace.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, one = 1, data = 42, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(&data, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    hrace_resource_signal(win, 1, 0, sizeof(int));
    MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
  } else {
    volatile int *flag = &x[0];
    while (*flag == 0)
      MPI_Win_sync(win);
    hrace_resource_wait(win, 1, 0, sizeof(int));
    s = x[1];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
