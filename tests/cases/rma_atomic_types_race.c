/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 35 44
 * pair: 36 45
 * pair: 38 47
 * pair: 41 54
 */
/* Accumulate-family operations are atomic only against each other and only with the same
 * predefined datatype (MPI-3.1 Sec. 11.7.1): MPI_INT vs MPI_FLOAT and MPI_INT vs MPI_LONG on
 * one location race, and so does an accumulate against a put, or against a C11 atomic load of
 * the target (MPI and the compiler's atomics know nothing of each other). Not reported: a
 * contiguous derived type of MPI_INT against MPI_INT (37 / 46), Raccumulate against
 * Rget_accumulate with the same type (39 / 49). */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, one = 1, two[2] = {1, 1}, r = 0, s = 0;
  float f = 1.0f;
  long l = 1;
  MPI_Win win;
  MPI_Datatype ctg;
  MPI_Request rq[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0;
  MPI_Type_contiguous(2, MPI_INT, &ctg);
  MPI_Type_commit(&ctg);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(two, 2, MPI_INT, 1, 2, 2, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(two, 2, MPI_INT, 1, 4, 1, ctg, MPI_SUM, win);
    MPI_Raccumulate(&one, 1, MPI_INT, 1, 6, 1, MPI_INT, MPI_SUM, win, &rq[0]);
    MPI_Raccumulate(&one, 1, MPI_INT, 1, 7, 1, MPI_INT, MPI_MIN, win, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Fetch_and_op(&one, &r, MPI_INT, 1, 8, MPI_SUM, win);
    MPI_Win_flush(1, win);
  } else if (rank == 2) {
    MPI_Accumulate(&f, 1, MPI_FLOAT, 1, 0, 1, MPI_FLOAT, MPI_SUM, win);
    MPI_Accumulate(&l, 1, MPI_LONG, 1, 2, 1, MPI_LONG, MPI_SUM, win);
    MPI_Accumulate(&one, 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_SUM, win);
    MPI_Put(&one, 1, MPI_INT, 1, 6, 1, MPI_INT, win);
    int res = 0, flag = 0;
    MPI_Rget_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, 1, 7, 1, MPI_INT, MPI_SUM, win, &rq[0]);
    while (!flag) MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
    MPI_Win_flush(1, win);
    s += res;
  } else {
    s += atomic_load((_Atomic int *)&x[8]);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, r);
  MPI_Type_free(&ctg);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
