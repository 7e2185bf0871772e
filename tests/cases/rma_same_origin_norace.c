/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_same_origin_race: a flush between the two operations of each pair completes the
 * first at the target before the second is issued (MPI_Win_flush; for the request-based pair,
 * MPI_Win_flush after the MPI_Wait, which alone would complete the Rput only locally). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[10], r[10];
  MPI_Win win;
  MPI_Request rq;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 10; i++) x[i] = 0, v[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    MPI_Get(&r[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Get(&r[2], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Win_flush_all(win);
    MPI_Put(&v[2], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Put(&v[3], 1, MPI_INT, 1, 3, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    MPI_Accumulate(&v[3], 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&v[4], 1, MPI_INT, 1, 4, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(1, win);
    MPI_Get(&r[4], 1, MPI_INT, 1, 4, 1, MPI_INT, win);
    MPI_Rput(&v[5], 1, MPI_INT, 1, 5, 1, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_flush(1, win);
    MPI_Rget(&r[5], 1, MPI_INT, 1, 5, 1, MPI_INT, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%d\n", r[1] + r[2] + r[4] + r[5]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
