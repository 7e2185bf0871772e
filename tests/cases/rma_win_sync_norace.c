/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_win_sync_race: the usual pattern for shared windows in the unified model,
 * MPI_Win_sync + MPI_Barrier + MPI_Win_sync. The barrier orders the store before the load. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *mine, *x, s = 0;
  MPI_Aint size;
  int du;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 0, &size, &du, &x);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    mine[0] = 1;
    MPI_Win_sync(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_sync(win);
    s += x[0];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
