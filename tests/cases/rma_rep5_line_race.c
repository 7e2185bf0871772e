/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 29
 * pair: 29 30
 */
/* The hot repeat's code address is the wrapper's own return address (rma/ops.c hot_t), compared
 * as the wrapper finds it. Rank 0 gets into one buffer three times from one line (the third a
 * hot repeat), then once from the next line with the same arguments, in the same activation of
 * main (the same shadow stack), all four in flight at once: the second line's call is a first
 * one and goes the whole way, so it races with the first line's gets in flight. A hot repeat
 * that did not compare the return address would make it a repeat of the first line's: no
 * check, the pair 29 30 lost. (rma_rep5_line_norace has the same two lines, race-free.) */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 4; i++) {
      if (i < 3) MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      else MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
