/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 44 48
 * diagnostic: 35
 * diagnostic: 36
 * diagnostic: 37
 * diagnostic: 38
 * diagnostic: 39
 * diagnostic: 40
 * diagnostic: 42
 * diagnostic: 43
 * mpi: openmpi
 */
/* Open MPI only: MPICH accepts the put beyond the target's window that Open MPI refuses (the
 * misuse at line 45 here), and it then races with the load as well. */
/* Misuse of MPI that hrace diagnoses (with rank and line) before MPI answers it with an error
 * (the window's error handler returns errors here): an operation outside any epoch, to a rank
 * outside the window's group, beyond the target's window, an unlock and a flush without a lock,
 * an unlock_all without lock_all, complete without start, wait without post. The erroneous
 * calls leave no trace in the analysis: afterwards hrace still finds the one real race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 1, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  x[0] = x[1] = x[2] = x[3] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Win_flush(1, win);
    MPI_Win_unlock_all(win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 7, 0, 1, MPI_INT, win);
    MPI_Put(&v, 2, MPI_INT, 1, 3, 2, MPI_INT, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else {
    s += x[1] + x[2] + x[3];
    s += x[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
