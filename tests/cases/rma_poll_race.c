/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 28 32
 * pair: 26 34
 * mpi: openmpi
 */
/* Open MPI only: a target that spins on its window without calling MPI never sees MPICH's
 * puts (with or without hrace), so on MPICH the job never ends. */
/* Polling a flag in a window, without annotation: rank 0 puts the data, flushes, puts the
 * flag; rank 1 spins on its flag and then reads the data. Seeing the flag's new value orders
 * nothing (DESIGN: data never orders), so both the flag and the data race. */
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
    MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
  } else {
    volatile int *flag = &x[0];
    while (*flag == 0)
      MPI_Win_sync(win);
    s = x[1];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
