/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 24 30
 */
/* MPI_Win_sync synchronises the private and public copies of a window (MPI-3.1 Sec. 11.7);
 * between processes it orders nothing. Rank 0 stores into its shared segment and syncs; rank 1
 * (started after it in real time, through PMPI_Barrier which hrace does not see) syncs and
 * loads: a race. */
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
  PMPI_Barrier(MPI_COMM_WORLD);
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
