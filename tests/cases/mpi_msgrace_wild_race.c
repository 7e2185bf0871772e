/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 21 24
 */
/* Two wildcard receives and two concurrent senders: whichever message the first receive got,
 * the other could have been first. A message race between the two sends. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, a = 0, b = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  } else if (rank == 0) {
    a = 10;
    MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    b = 20;
    MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
