/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 30
 * pair: 31 32
 * pair: 33 34
 * pair: 35 36
 * pair: 37 38
 * pair: 39 40
 */
/* Two operations of one origin in one epoch, same location, no flush between: MPI may
 * reorder or overlap them until they complete (MPI-3.1 Sec. 11.7.2), so a write and anything
 * else race. Not reported: two Gets (42 / 43), two accumulates of the same type
 * (44 / 45), and a Get with a NO_OP Get_accumulate (46 / 47). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[10], r[10], r2[10];
  MPI_Win win;
  MPI_Request rq[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 10; i++) x[i] = 0, v[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Get(&r[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Get(&r[2], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Put(&v[2], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Put(&v[3], 1, MPI_INT, 1, 3, 1, MPI_INT, win);
    MPI_Accumulate(&v[3], 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&v[4], 1, MPI_INT, 1, 4, 1, MPI_INT, MPI_SUM, win);
    MPI_Get(&r[4], 1, MPI_INT, 1, 4, 1, MPI_INT, win);
    MPI_Rput(&v[5], 1, MPI_INT, 1, 5, 1, MPI_INT, win, &rq[0]);
    MPI_Rget(&r[5], 1, MPI_INT, 1, 5, 1, MPI_INT, win, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Get(&r[6], 1, MPI_INT, 1, 6, 1, MPI_INT, win);
    MPI_Get(&r2[6], 1, MPI_INT, 1, 6, 1, MPI_INT, win);
    MPI_Accumulate(&v[7], 1, MPI_INT, 1, 7, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&v[7], 1, MPI_INT, 1, 7, 1, MPI_INT, MPI_MAX, win);
    MPI_Get(&r[8], 1, MPI_INT, 1, 8, 1, MPI_INT, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &r2[8], 1, MPI_INT, 1, 8, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%d\n", r[1] + r[2] + r[4] + r[5] + r[6] + r2[6] + r[8] + r2[8]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
