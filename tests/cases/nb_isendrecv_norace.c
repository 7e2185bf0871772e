/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: mpich
 */
/* The twin of nb_isendrecv_race: the send buffer is only loaded while the MPI_Isendrecv is in
 * flight, and the receive buffer used after MPI_Wait. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, mine[2], got[2] = { 0 }, x = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  mine[0] = mine[1] = rank;
  int peer = 1 - rank;
  MPI_Isendrecv(mine, 2, MPI_INT, peer, 5, got, 2, MPI_INT, peer, 5, MPI_COMM_WORLD, &r);
  x = mine[1];
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  x += got[0];
  mine[1] = 7;
  printf("%d %d\n", got[1], x);
  MPI_Finalize();
  return 0;
}
