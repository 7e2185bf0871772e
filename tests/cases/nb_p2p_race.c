/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 22 21
 * pair: 27 26
 * pair: 31 29
 */
/* Buffers of non-blocking point-to-point calls in flight (MPI-3.1 Sec. 3.7.2): rank 0 stores
 * into the buffer of its MPI_Isend before MPI_Wait; rank 1 loads from the buffer of its
 * MPI_Irecv before MPI_Wait, and stores into the buffer of a started persistent receive
 * before it completes. Each race names the access and the call that posted the buffer. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, buf[4] = { 1, 2, 3, 4 }, in[4] = { 0 }, pin[2] = { 0 }, x = 0;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    MPI_Isend(buf, 4, MPI_INT, 1, 0, MPI_COMM_WORLD, &r); /* ISEND */
    buf[2] = 7; /* SEND_STORE */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Send(buf, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
  } else {
    MPI_Irecv(in, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, &r); /* IRECV */
    x = in[1]; /* RECV_LOAD */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Recv_init(pin, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &r); /* RECV_INIT */
    MPI_Start(&r);
    pin[0] = 5; /* PRECV_STORE */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Request_free(&r);
  }
  printf("%d %d %d\n", x, in[0], pin[1]);
  MPI_Finalize();
  return 0;
}
