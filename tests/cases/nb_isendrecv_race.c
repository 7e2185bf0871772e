/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 21 20
 * pair: 22 20
 * mpi: mpich
 */
/* MPI-4's MPI_Isendrecv (MPICH only here: Open MPI 4.1 has no MPI-4): its send buffer may not
 * be stored to, nor its receive buffer loaded, before the request completes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, mine[2], got[2] = { 0 }, x = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  mine[0] = mine[1] = rank;
  int peer = 1 - rank;
  MPI_Isendrecv(mine, 2, MPI_INT, peer, 5, got, 2, MPI_INT, peer, 5, MPI_COMM_WORLD, &r); /* ISENDRECV */
  if (rank == 0) mine[1] = 7; /* SEND_STORE */
  else x = got[0]; /* RECV_LOAD */
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  printf("%d %d\n", got[1], x);
  MPI_Finalize();
  return 0;
}
