/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 31 44
 * pair: 32 45
 * pair: 33 46
 * pair: 34 47
 * pair: 37 50
 * pair: 38 51
 * pair: 39 52
 * pair: 40 53
 */
/* Every operation against a load or store at the target, one location each, with no
 * synchronisation between them: rank 0 issues inside its own lock epoch while rank 1 touches
 * its window memory. Two pairs only read and must not be reported: Get vs load (lines 35,
 * 48) and Get_accumulate(MPI_NO_OP) vs load (36, 49). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, r[10] = {0}, s = 0;
  MPI_Win win;
  MPI_Request req;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0;
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
  } else {
    s += x[0];
    x[1] = 5;
    s += x[2];
    x[3] = 6;
    s += x[4];
    s += x[5];
    s += x[6];
    x[7] = 7;
    s += x[8];
    x[9] = 8;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, r[1]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
