/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 33 47
 * pair: 34 48
 * pair: 35 49
 * pair: 36 50
 * pair: 37 51
 * pair: 38 52
 * pair: 39 54
 * pair: 45 59
 */
/* Operations of two origins (ranks 0 and 2) on the same locations of rank 1, in shared-lock
 * epochs that overlap: nothing orders them. Pairs that must not be reported: Get vs Get
 * (41 / 55), Accumulate vs Get_accumulate with the same predefined type (42 /
 * 56), Fetch_and_op vs Compare_and_swap on MPI_INT (43 / 57), NO_OP vs Get
 * (44 / 58). Accumulates with MPI_INT and MPI_FLOAT (45 / 59) do race. */
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
  if (rank != 1) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
  if (rank == 0) {
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Put(&v[2], 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Get(&r[3], 1, MPI_INT, 1, 3, 1, MPI_INT, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &r[4], 1, MPI_INT, 1, 4, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Compare_and_swap(&v[5], &v[0], &r[5], MPI_INT, 1, 5, win);
    MPI_Rget(&r[6], 1, MPI_INT, 1, 6, 1, MPI_INT, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Get(&r[7], 1, MPI_INT, 1, 7, 1, MPI_INT, win);
    MPI_Accumulate(&v[8], 1, MPI_INT, 1, 8, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&v[9], &r[9], MPI_INT, 1, 9, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &r[10], 1, MPI_INT, 1, 10, 1, MPI_INT, MPI_NO_OP, win);
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
    MPI_Get(&r[7], 1, MPI_INT, 1, 7, 1, MPI_INT, win);
    MPI_Get_accumulate(&v[8], 1, MPI_INT, &r[8], 1, MPI_INT, 1, 8, 1, MPI_INT, MPI_SUM, win);
    MPI_Compare_and_swap(&v[9], &v[0], &r[9], MPI_INT, 1, 9, win);
    MPI_Get(&r[10], 1, MPI_INT, 1, 10, 1, MPI_INT, win);
    MPI_Accumulate(&f, 1, MPI_FLOAT, 1, 11, 1, MPI_FLOAT, MPI_SUM, win);
  }
  /* Both epochs are open before either closes (invisible to hrace). */
  PMPI_Barrier(MPI_COMM_WORLD);
  if (rank != 1) MPI_Win_unlock(1, win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", r[1] + r[3]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
