/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 22 22
 * golden: msg_callers_persist
 */
/* A persistent send's side is named by the caller chain of its MPI_Send_init (docs/mpi.md,
 * "Message races"): the frame is refilled at every MPI_Start, from wherever that is, but the
 * code that built the message is the init's. Both ranks make their request in make() (line 22),
 * rank 0 through from_left() (line 34), rank 2 through from_right() (line 36), and start it
 * from main. The report must show make, from_left / from_right and main for the two sides.
 * Rank 1's two wildcard receives can each match either message: a message race. Twin:
 * msg_callers_persist_norace.c. Its report is kept in tests/golden/msg_callers_persist.*. */
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
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
  } else {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  }
  MPI_Finalize();
  return 0;
}
