/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 21 21
 * golden: msg_callers
 */
/* Each side of a message race names its sender's callers, as every race side does (issue 18
 * item 1): both sends are the one MPI_Send in post(), which rank 0 reaches through from_left()
 * and rank 2 through from_right(), so the two sides differ only in their callers. The report
 * must show post, from_left and main (line 32) for rank 0, and post, from_right and main
 * (line 35) for rank 2: the frame carries the sender's stack id, and rank 1 asks each sender
 * for its frames (docs/mpi.md, "Message races"). Rank 1's two wildcard receives can each match
 * either message: a message race. Twin: msg_callers_norace.c (rank 2 sends only after rank 1's
 * first receive). Its report is kept in tests/golden/msg_callers.*. */
#include <mpi.h>
#include <stdio.h>

#define HELPER __attribute__((noinline))

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
    from_right(&b);
  } else {
    MPI_Recv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("%d %d\n", a, b);
  }
  MPI_Finalize();
  return 0;
}
