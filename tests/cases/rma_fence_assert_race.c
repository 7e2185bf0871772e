/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 24 29
 * pair: 30 32
 */
/* A fence with MPI_MODE_NOPRECEDE opens an epoch but need not be a barrier (MPI-3.1
 * Sec. 11.5.1): rank 1's store into its shared segment before it is not ordered before rank
 * 0's direct load after it. Operations of the epoch do follow the target's fence (rank 0's put
 * and rank 1's x[1] = 0 don't race) but not the target's later accesses (32). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *mine, *x, s = 0, v = 5;
  MPI_Aint size;
  int du;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 1, &size, &du, &x);
  if (rank == 1) {
    mine[0] = 1;
    mine[1] = 0;
  }
  MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
  if (rank == 0) {
    s += x[0];
    MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
  } else {
    mine[1] = 2;
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
