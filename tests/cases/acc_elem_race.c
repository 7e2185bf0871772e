/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 23 25
 */
/* Accumulates are atomic per element of their predefined type (MPI-3.1 Sec. 11.7.1): with
 * disp_unit 1, rank 0 adds an MPI_INT at byte 0 of rank 2's window and rank 1 one at byte 1.
 * The two ints overlap in three bytes but are different elements: no atomicity holds between
 * them, and they race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, one = 1;
  char *base;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0)
    MPI_Accumulate(&one, 1, MPI_INT, 2, 0, 1, MPI_INT, MPI_SUM, win); /* ACC0 */
  else if (rank == 1)
    MPI_Accumulate(&one, 1, MPI_INT, 2, 1, 1, MPI_INT, MPI_SUM, win); /* ACC1 */
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
