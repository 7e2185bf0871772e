/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Twin of msg_callers_persist_race.c: the same persistent sends made in make() through
 * distinct callers, but rank 2 starts its request only after rank 1 told it that its first
 * wildcard receive is done, so that receive cannot match rank 2's message: no race. */
#include <mpi.h>
#include <stdio.h>

#define HELPER __attribute__((noinline))

static MPI_Request req;

HELPER static void make(int *v) {
  MPI_Send_init(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &req);
}
HELPER static void from_left(int *v) { make(v); }
HELPER static void from_right(int *v) { make(v); }

int main(int argc, char **argv) {
  int rank, a = 0, b = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 1) {
    a = 10 + rank;
    if (rank == 0)
      from_left(&a);
    else
      from_right(&a);
    if (rank == 2) MPI_Recv(&b, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
  } else {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&b, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  }
  MPI_Finalize();
  return 0;
}
