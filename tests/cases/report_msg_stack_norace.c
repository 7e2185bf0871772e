/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* A message race's sides have the frames of the send's code, inlined ones included (issue 18
 * item 1): both sends are in post(), inlined into main, so each side reads "post ... inlined in
 * main"; main is the end of each chain (msg_callers_race.c has callers that are not inlined).
 * Rank 2 sends only after rank 1 told it that its first wildcard receive is done: that
 * receive cannot match rank 2's message, no race. Twin:
 * report_msg_stack_race.c. */
#include <mpi.h>
#include <stdio.h>

static int go = 1;

static inline __attribute__((always_inline)) void post(int *v) {
  MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, a = 0, b = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&go, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  } else if (rank == 0) {
    a = 10;
    post(&a);
  } else {
    b = 20;
    MPI_Recv(&go, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    post(&b);
  }
  MPI_Finalize();
  return 0;
}
