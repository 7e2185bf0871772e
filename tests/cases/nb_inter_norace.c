/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The twin of nb_inter_race, on the same intercommunicator (group A = ranks {0, 1}, B = {2}):
 * during the MPI_Ibcast rooted at rank 0 the root loads its buffer (MPI only reads it) and
 * rank 1, passing MPI_PROC_NULL, stores into its own freely; during the MPI_Iallgather rank 0
 * stores into the second element of its receive buffer, beyond its one block (group B has one
 * rank); during the MPI_Igather rooted at rank 2 the root stores into its send buffer (the
 * root of an intercommunicator gather sends nothing) and the senders load theirs. */
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
  MPI_Ibcast(b, 2, MPI_INT, root_a, inter, &q);
  if (rank == 0) x += b[1];
  if (rank == 1) b[1] = 3;
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  x += b[0];
  MPI_Iallgather(&sb, 1, MPI_INT, g, 1, MPI_INT, inter, &q);
  if (rank == 0) g[1] = 9;
  x += sb;
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Igather(&sb, 1, MPI_INT, rb, 1, MPI_INT, root_b, inter, &q);
  if (rank == 2) sb = 4;
  else x += sb;
  MPI_Wait(&q, MPI_STATUS_IGNORE);
  x += rb[1] + g[0];
  printf("%d\n", x);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return 0;
}
