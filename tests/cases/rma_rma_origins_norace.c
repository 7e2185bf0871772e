/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Twin of rma_rma_origins_race: the same two sequences of operations, in exclusive-lock
 * epochs. hrace grants the epochs in some order, and the unlock of the first orders it before
 * the lock of the second (seed 001 Table III), whichever rank wins. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[16], r[16];
  float f = 1.0f;
  MPI_Win win;
  MPI_Request req;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0, v[i] = i, r[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 1) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
  if (rank == 0) {
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Put(&v[2], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Get(&r[3], 1, MPI_INT, 1, 3, 1, MPI_INT, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &r[4], 1, MPI_INT, 1, 4, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Compare_and_swap(&v[5], &v[0], &r[5], MPI_INT, 1, 5, win);
    MPI_Rget(&r[6], 1, MPI_INT, 1, 6, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Accumulate(&v[11], 1, MPI_INT, 1, 11, 1, MPI_INT, MPI_SUM, win);
  } else if (rank == 2) {
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Get(&r[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Accumulate(&v[2], 1, MPI_INT, 1, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&v[3], 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_MAX, win);
    MPI_Put(&v[4], 1, MPI_INT, 1, 4, 1, MPI_INT, win);
    MPI_Rput(&v[5], 1, MPI_INT, 1, 5, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Fetch_and_op(&v[6], &r[6], MPI_INT, 1, 6, MPI_SUM, win);
    MPI_Accumulate(&f, 1, MPI_FLOAT, 1, 11, 1, MPI_FLOAT, MPI_SUM, win);
  }
  if (rank != 1) MPI_Win_unlock(1, win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", r[1] + r[3]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
