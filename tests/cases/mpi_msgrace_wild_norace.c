/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The deterministic twin of mpi_msgrace_wild_race.c: rank 2 sends only after rank 1 told it
 * that its first wildcard receive is done, so rank 2's message cannot match that receive: the
 * late-message rule (seed 000) sees rank 2's send ordered after it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, a = 0, b = 0, go = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  } else if (rank == 0) {
    a = 10;
    MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    b = 20;
    MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
