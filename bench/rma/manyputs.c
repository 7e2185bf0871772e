/* Many puts from distinct origin buffers in one epoch: the cost of tracking in-flight buffers. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n = argc > 1 ? atoi(argv[1]) : 10000, *base;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_allocate(n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  int *src = malloc(n * 64);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < n; i++) MPI_Put(src + 16 * i, 1, MPI_INT, 1, i, 1, MPI_INT, win);
    MPI_Win_unlock_all(win);
  }
  t = MPI_Wtime() - t;
  if (rank == 0) printf("%d puts: %.1f ms (%.2f us per put)\n", n, t * 1e3, t * 1e6 / n);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
