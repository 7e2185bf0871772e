/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: mpich
 */
/* MPI-4's large-count collectives order like their int forms: the only thing between rank 0's
 * put and rank 1's load is MPI_Bcast_c from rank 0. Rank 0 broadcasts after its unlock: the broadcast orders the put before the load.
 * Twin: mpi_coll_c_race.c. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 5, s = 0, tok = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Bcast_c(&tok, (MPI_Count)1, MPI_INT, 0, MPI_COMM_WORLD);
  } else {
    MPI_Bcast_c(&tok, (MPI_Count)1, MPI_INT, 0, MPI_COMM_WORLD);
    s = *x;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
