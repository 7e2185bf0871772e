/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 29 32
 */
/* Twin of fence_noack_lock_norace: rank 0 reads x[0] right after the NOSUCCEED fence, not
 * ordered with rank 2's put in its lock epoch (a race with it only: rank 1's put of the fence
 * epoch is ordered before the read). */
#include <mpi.h>
#include <stdio.h>

#define ITERS 20

int main(int argc, char **argv) {
  int rank, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < ITERS; it++) {
    int v = it + rank;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank == 1) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 2) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
      MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
      MPI_Win_unlock(0, win);
    }
    if (rank == 0) s += x[0];
    MPI_Barrier(MPI_COMM_WORLD);
  }
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
