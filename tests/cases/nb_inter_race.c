/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 31 30
 * pair: 34 33
 * pair: 37 36
 */
/* Non-blocking collectives on an intercommunicator (MPI-3.1 Sec. 5.2.3) between group A =
 * ranks {0, 1} and group B = {2}: rank 2 loads the buffer of an MPI_Ibcast rooted at rank 0
 * (MPI_ROOT there) before it completes; rank 2 stores into the second block of its
 * MPI_Iallgather receive buffer, which holds one block per rank of the remote group (two);
 * rank 1 stores into the send buffer of an MPI_Igather rooted at rank 2. (The twin,
 * nb_inter_norace, touches only what each side's role leaves alone.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, x = 0, b[2] = { 0, 0 }, g[2] = { 0, 0 }, sb, rb[2] = { 0, 0 };
  MPI_Comm local, inter;
  MPI_Request q;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int a = rank < 2;
  MPI_Comm_split(MPI_COMM_WORLD, a, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 2 : 0, 7, &inter);
  int root_a = a ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  int root_b = a ? 0 : MPI_ROOT;
  sb = rank;
  if (rank == 0) b[0] = b[1] = 5;
  MPI_Ibcast(b, 2, MPI_INT, root_a, inter, &q); /* IBCAST */
  if (rank == 2) x += b[1]; /* BCAST_LOAD */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Iallgather(&sb, 1, MPI_INT, g, 1, MPI_INT, inter, &q); /* IALLGATHER */
  if (rank == 2) g[1] = 9; /* GATHER_STORE */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Igather(&sb, 1, MPI_INT, rb, 1, MPI_INT, root_b, inter, &q); /* IGATHER */
  if (rank == 1) sb = 4; /* SEND_STORE */
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  printf("%d %d %d\n", x, g[0], rb[1]);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
