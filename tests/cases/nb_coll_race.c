/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 29 28
 * pair: 32 31
 * pair: 35 34
 * pair: 38 37
 */
/* Buffers of non-blocking collectives in flight (MPI-3.1 Sec. 5.12): a non-root loads the
 * buffer of its MPI_Ibcast, every rank stores into the send buffer of its MPI_Iallreduce and
 * into one of its receive blocks of an MPI_Ialltoallv, and loads a receive block of an
 * MPI_Ineighbor_allgather on a ring, each before the request completes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, x = 0;
  int b[2] = { 0, 0 }, s[2] = { 1, 2 }, r[2], sv[3] = { 1, 2, 3 }, rv[3] = { 0 }, nb[2] = { 0 };
  int ones[3] = { 1, 1, 1 }, displs[3] = { 0, 1, 2 };
  MPI_Request q;
  MPI_Comm ring;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[1] = { size }, periods[1] = { 1 };
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  if (rank == 0) b[0] = b[1] = 5;
  MPI_Ibcast(b, 2, MPI_INT, 0, MPI_COMM_WORLD, &q); /* IBCAST */
  if (rank != 0) x += b[1]; /* BCAST_LOAD */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Iallreduce(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q); /* IALLREDUCE */
  s[1] = 4; /* SEND_STORE */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Ialltoallv(sv, ones, displs, MPI_INT, rv, ones, displs, MPI_INT, MPI_COMM_WORLD, &q); /* IALLTOALLV */
  rv[2] = 9; /* V_STORE */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Ineighbor_allgather(&rank, 1, MPI_INT, nb, 1, MPI_INT, ring, &q); /* INEIGHBOR */
  x += nb[1]; /* N_LOAD */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  printf("%d %d %d %d\n", x, r[0], rv[0], nb[0]);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
