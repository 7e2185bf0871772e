/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 17 17
 * golden: report_msg_stack
 */
/* A message race's sides have the frames of the send's code, inlined ones included (issue 18
 * item 1): both sends are in post(), inlined into main, so each side reads "post ... inlined in
 * main"; main is the end of each chain (msg_callers_race.c has callers that are not inlined).
 * Rank 1's two wildcard receives can each match either sender: a message race. Twin:
 * report_msg_stack_norace.c (rank 2 sends only after rank 1's first receive). Its report is
 * kept in tests/golden/report_msg_stack.*. */
#include <mpi.h>
#include <stdio.h>

static inline __attribute__((always_inline)) void post(int *v) {
  MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
}

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
    post(&a);
  } else {
    b = 20;
    post(&b);
  }
  MPI_Finalize();
  return 0;
}
