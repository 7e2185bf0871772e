/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The twin of nb_coll_race: the root loads its MPI_Ibcast buffer (MPI only reads it there),
 * every rank loads the send buffers of its MPI_Iallreduce and MPI_Ialltoallv, touches bytes
 * of the receive buffer that no block of the MPI_Ialltoallv covers, and uses every receive
 * buffer only after MPI_Wait / a successful MPI_Test. MPI_IN_PLACE leaves the send side out. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, x = 0, flag = 0;
  int b[2] = { 0, 0 }, s[2] = { 1, 2 }, r[2], sv[3] = { 1, 2, 3 }, rv[4] = { 0 }, nb[2] = { 0 };
  int ones[3] = { 1, 1, 1 }, displs[3] = { 0, 1, 2 };
  MPI_Request q;
  MPI_Comm ring;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[1] = { size }, periods[1] = { 1 };
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  if (rank == 0) b[0] = b[1] = 5;
  MPI_Ibcast(b, 2, MPI_INT, 0, MPI_COMM_WORLD, &q);
  if (rank == 0) x += b[1];
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  x += b[0];
  MPI_Iallreduce(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
  x += s[1];
  while (!flag) MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
  s[1] = r[0];
  MPI_Iallreduce(MPI_IN_PLACE, s, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Ialltoallv(sv, ones, displs, MPI_INT, rv, ones, displs, MPI_INT, MPI_COMM_WORLD, &q);
  x += sv[2];
  rv[3] = 9; /* past the last block */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  rv[2] = 9;
  MPI_Ineighbor_allgather(&rank, 1, MPI_INT, nb, 1, MPI_INT, ring, &q);
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  x += nb[1];
  printf("%d %d %d %d\n", x, s[0], rv[0], nb[0]);
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
