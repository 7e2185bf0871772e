/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 22 23
 * pair: 28 32
 */
/* The target protects its own loads and stores with a lock on itself, but a shared one: shared
 * locks do not exclude each other (rank 0 holds a shared lock too), so nothing orders them.
 * Second pair: the barrier comes after the wrong call (before rank 0's unlock). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 3, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
  if (rank == 0) MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  else s += x[0];
  PMPI_Barrier(MPI_COMM_WORLD);   /* both epochs overlap, invisibly to hrace */
  MPI_Win_unlock(1, win);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_Win_unlock(1, win);
  else x[1] = 4;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
