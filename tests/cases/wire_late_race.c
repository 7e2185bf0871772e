/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 29 33
 * env: HRACE_OPTIONS=wire=always
 */
/* A message sent before six barriers and received after them, by a wildcard receive: its clock
 * was encoded against the base of the barrier before it, which the receiver no longer keeps
 * (it keeps the four newest once no context of it lags behind them: src/mpi/coll.c). Rank 2 sends without knowing that rank 1's first wildcard
 * receive matched rank 0's message, so its message could have matched that receive instead:
 * a message race, which hrace finds from the sender's knowledge of the receiver's own entry.
 * That entry must survive the missing base (it travels as a value of its own); decoded from a
 * newer base instead, it would cover the match and the race would be lost. */
#include <mpi.h>
#include <stdio.h>

/* Orders ranks in real time without hrace seeing it (PMPI is not intercepted). */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  int rank, a = 10, b = 20, x = 0, y = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    invisible_barrier();
  } else if (rank == 0) {
    MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    invisible_barrier();
  } else {
    invisible_barrier();
    MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  }
  for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 1) printf("%d %d\n", x, y);
  MPI_Finalize();
  return 0;
}
