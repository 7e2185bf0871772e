/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 20 21
 */
/* twin of fence_norace: rank 1 loads inside the fence epoch the put belongs to. */
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
  int v = 5, x = 0;
  MPI_Win_fence(0, win);
  if (rank == 0) MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  if (rank == 1) x = base[0];
  MPI_Win_fence(0, win);
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
