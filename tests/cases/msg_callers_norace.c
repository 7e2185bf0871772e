/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Twin of msg_callers_race.c: the same two sends from post() through distinct callers, but
 * rank 2 sends only after rank 1 told it that its first wildcard receive is done, so that
 * receive cannot match rank 2's message: no race. */
#include <mpi.h>
#include <stdio.h>

#define HELPER __attribute__((noinline))

static int go = 1;

HELPER static void post(int *v) {
  MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
}
HELPER static void from_left(int *v) { post(v); }
HELPER static void from_right(int *v) { post(v); }

int main(int argc, char **argv) {
  int rank, a = 0, b = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    a = 10;
    from_left(&a);
  } else if (rank == 2) {
    b = 20;
    MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    from_right(&b);
  } else {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  }
  MPI_Finalize();
  return 0;
}
