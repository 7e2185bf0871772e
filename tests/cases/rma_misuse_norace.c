/* hrace-test
 * ranks: 2
 * expect: no-race
 * diagnostic: 28
 * diagnostic: 29
 * diagnostic: 30
 * diagnostic: 31
 * diagnostic: 32
 * diagnostic: 33
 * diagnostic: 35
 * diagnostic: 36
 */
/* Twin of rma_misuse_race: the same erroneous calls (each diagnosed, each refused by MPI), and
 * the last put is completed and ordered before rank 1's load. */
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
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) s += x[0] + x[1] + x[2] + x[3];
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
