/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The deterministic twin of seed 000 Fig. 1: rank 1 names the source of each receive, so each
 * send has exactly one receive it can match. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, a = 22, b = 33, x = 0, y = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Isend(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("x=%d y=%d\n", x, y);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Isend(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
