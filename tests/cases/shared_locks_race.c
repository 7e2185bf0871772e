/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 21 25
 */
/* twin of excl_locks_norace with shared locks: shared locks do not exclude, the puts race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 4; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int v = rank;
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else if (rank == 2) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
