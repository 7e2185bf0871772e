/* Fence epochs (bench/README.md, "Session 13: fences without acknowledgements"):
 *   fences N [PUT]   N fences on a one-int window; PUT 0: no operations, 1: rank 1 puts one
 *                    int into rank 0 in each epoch (rank 0 issues nothing), 2: every rank but
 *                    0 does (into the same int: the program races there). Rank 0 prints the
 *                    loop's wall time: "FENCES N seconds". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, *x, n = argc > 1 ? atoi(argv[1]) : 20000, put = argc > 2 ? atoi(argv[2]) : 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  MPI_Win_fence(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < n; i++) {
    if ((put == 1 && rank == 1) || (put == 2 && rank != 0)) MPI_Put(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
  }
  t = MPI_Wtime() - t;
  if (rank == 0) printf("FENCES %d %.4f\n", n, t);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
