/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The twin of acc_elem_race: accumulates of the same predefined type on the same elements
 * are atomic, also when those elements are not aligned to the type (both at byte 1, disp_unit
 * 1), and aligned ones at bytes 8 (from ranks 0 and 1, one of them through a contiguous
 * derived type of MPI_INT). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, one[2] = { 1, 1 };
  char *base;
  MPI_Win win;
  MPI_Datatype two;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_commit(&two);
  MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Accumulate(one, 1, MPI_INT, 2, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(one, 2, MPI_INT, 2, 8, 2, MPI_INT, MPI_SUM, win);
  } else if (rank == 1) {
    MPI_Accumulate(one, 1, MPI_INT, 2, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(one, 1, two, 2, 8, 1, two, MPI_SUM, win);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Type_free(&two);
  MPI_Finalize();
  return 0;
}
