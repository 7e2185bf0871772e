/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_target_ops_race: the same operations and accesses, ordered. Rank 1's first
 * accesses precede the barrier that precedes rank 0's epoch; its second ones follow the
 * unlock (remote completion) and a barrier after it. */
#include <mpi.h>
#include <stdio.h>

static void touch(int *x, int *s) {
  *s += x[0];
  x[1] = 5;
  *s += x[2];
  x[3] = 6;
  *s += x[4];
  *s += x[5];
  *s += x[6];
  x[7] = 7;
  *s += x[8];
  x[9] = 8;
}

int main(int argc, char **argv) {
  int rank, *x, v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, r[10] = {0}, s = 0;
  MPI_Win win;
  MPI_Request req;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0;
  if (rank == 1) touch(x, &s);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Get(&r[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Accumulate(&v[2], 1, MPI_INT, 1, 2, 1, MPI_INT, MPI_SUM, win);
    MPI_Get_accumulate(&v[3], 1, MPI_INT, &r[3], 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Get(&r[4], 1, MPI_INT, 1, 4, 1, MPI_INT, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &r[5], 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Fetch_and_op(&v[6], &r[6], MPI_INT, 1, 6, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &r[7], 1, MPI_INT, 1, 7, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Compare_and_swap(&v[8], &v[0], &r[8], MPI_INT, 1, 8, win);
    MPI_Rput(&v[9], 1, MPI_INT, 1, 9, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) touch(x, &s);
  printf("%d %d\n", s, r[1]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
