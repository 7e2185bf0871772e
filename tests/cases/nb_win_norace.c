/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of nb_win_race: window memory used as a non-blocking buffer is touched only as
 * MPI allows (an MPI_Isend buffer loaded, an MPI_Irecv buffer after MPI_Wait), bytes beside
 * the buffers are free, and rank 1's MPI_Get lands next to its pending MPI_Irecv's bytes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, x = 0, *base;
  MPI_Win win;
  MPI_Request q[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = rank + i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 1) {
    MPI_Irecv(base, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &q[0]);
    x = base[2];
    base[3] = 4;
    MPI_Irecv(&base[4], 2, MPI_INT, 0, 2, MPI_COMM_WORLD, &q[1]);
    MPI_Get(&base[6], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
  } else {
    MPI_Isend(&base[2], 2, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[0]);
    x = base[3];
    base[4] = 9;
    MPI_Isend(&base[6], 2, MPI_INT, 1, 2, MPI_COMM_WORLD, &q[1]);
  }
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  x += base[1] + base[5];
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, base[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
