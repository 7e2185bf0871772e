/* hrace-test
 * ranks: 3
 * expect: no-race
 * env: HRACE_OPTIONS=wire=always
 */
/* The twin of wire_late_race: rank 2 sends only after rank 1 told it that its first wildcard
 * receive matched, so rank 2's message, sent before six barriers and received after them with
 * a base the receiver no longer keeps, knows the match (the receiver's own entry in it covers
 * it): no message race. Read as 0 with the rest of what the missing base coded, that entry
 * would report one. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, a = 10, b = 20, x = 0, y = 0, go = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 1) printf("%d %d\n", x, y);
  MPI_Finalize();
  return 0;
}
