/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 29 25
 * pair: 35 26
 * pair: 38 27
 * mpi: mpich
 */
/* MPI-4 persistent collectives (MPICH only here: Open MPI 4.1 has no MPI-4): from MPI_Start
 * to completion, their buffers are in flight as a non-blocking collective's are (MPI-4.0 Sec.
 * 6.13). A non-root loads the buffer of a started MPI_Bcast_init round; in the second round of
 * an MPI_Allreduce_init every rank stores into its send buffer (the first round completed, so
 * the store between the rounds is fine); a rank loads its MPI_Alltoallv_init receive block.
 * Each race names the access and the init call, as for persistent point-to-point requests. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, x = 0, b[2] = { 0, 0 }, s[2] = { 1, 2 }, r[2], sv[3] = { 1, 2, 3 }, rv[3] = { 0 };
  int ones[3] = { 1, 1, 1 }, displs[3] = { 0, 1, 2 };
  MPI_Request q, a, v;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) b[0] = b[1] = 5;
  MPI_Bcast_init(b, 2, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &q); /* BCAST_INIT */
  MPI_Allreduce_init(s, r, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &a); /* ALLREDUCE_INIT */
  MPI_Alltoallv_init(sv, ones, displs, MPI_INT, rv, ones, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &v); /* ALLTOALLV_INIT */
  MPI_Start(&q);
  if (rank != 0) x += b[1]; /* BCAST_LOAD */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Start(&a);
  MPI_Wait(&a, MPI_STATUS_IGNORE);
  s[0] = 3; /* between rounds: not in flight */
  MPI_Start(&a);
  s[1] = 4; /* SEND_STORE */
  MPI_Wait(&a, MPI_STATUS_IGNORE);
  MPI_Start(&v);
  x += rv[1]; /* V_LOAD */
  MPI_Wait(&v, MPI_STATUS_IGNORE);
  printf("%d %d %d\n", x, r[0], rv[0]);
  MPI_Request_free(&q);
  MPI_Request_free(&a);
  MPI_Request_free(&v);
  MPI_Finalize();
  return 0;
}
