/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 18 29
 */
/* Seed 000 Fig. 1: rank 1's wildcard Irecv is posted before the barrier and may still be
 * pending after it, so rank 2's Isend issued after the barrier can match it instead of rank
 * 0's: a message race between the two sends. */
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
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
