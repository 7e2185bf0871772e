/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 25 34
 * pair: 28 35
 */
/* MPI_Win_flush_local and MPI_Wait on an MPI_Rput complete the operation at the origin only
 * (its buffer may be reused); the target may not have received it (MPI-3.1 Sec. 11.5.4,
 * 11.3.5). A barrier after them orders nothing at the target. The buffer stores after local
 * completion (27, 30) are fine. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 1, w = 2, s = 0;
  MPI_Win win;
  MPI_Request rq;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush_local(1, win);
    v = 3;
    MPI_Rput(&w, 1, MPI_INT, 1, 1, 1, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    w = 4;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    s += x[0];
    s += x[1];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d %d\n", s, v, w);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
