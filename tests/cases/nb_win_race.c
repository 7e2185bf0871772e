/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 28
 * pair: 31 30
 * pair: 35 34
 */
/* Non-blocking point-to-point buffers inside the process's own window: window memory used as
 * an MPI_Irecv buffer is loaded before the receive completes (rank 1), window memory used as
 * an MPI_Isend buffer is stored to before the send completes (rank 0), and rank 1's MPI_Get
 * lands in window bytes its pending MPI_Irecv also writes (two operations in flight on the
 * same bytes, one of them writing). (The twin: nb_win_norace; another process's RMA on such
 * bytes: nb_win_remote_race.) */
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
    MPI_Irecv(base, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &q[0]); /* IRECV */
    x = base[1]; /* RECV_LOAD */
    MPI_Irecv(&base[4], 2, MPI_INT, 0, 2, MPI_COMM_WORLD, &q[1]); /* IRECV_2 */
    MPI_Get(&base[5], 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* GET */
    MPI_Win_flush(0, win);
  } else {
    MPI_Isend(&base[2], 2, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[0]); /* ISEND */
    base[3] = 9; /* SEND_STORE */
    MPI_Isend(&base[6], 2, MPI_INT, 1, 2, MPI_COMM_WORLD, &q[1]);
  }
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, base[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
