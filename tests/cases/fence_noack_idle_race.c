/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 25 28
 */
/* Twin of fence_noack_idle_norace: in one epoch rank 0 reads rank 1's slot before the fence
 * that completes rank 1's put into it. */
#include <mpi.h>
#include <stdio.h>

#define EPOCHS 40

int main(int argc, char **argv) {
  int rank, size, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < size; i++) x[i] = 0;
  MPI_Win_fence(0, win);
  for (int it = 0; it < EPOCHS; it++) {
    int v = it * size + rank;
    if (rank != 0) {
      MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, win);
    }
    if (rank == 0 && it == EPOCHS / 2) {
      s += x[1];
    }
    MPI_Win_fence(0, win);
    if (rank == 0)
      for (int i = 1; i < size; i++) {
        s += x[i];
        x[i] = 0;
      }
    MPI_Win_fence(0, win);
  }
  MPI_Win_fence(0, win);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
