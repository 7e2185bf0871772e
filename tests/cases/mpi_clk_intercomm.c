/* hrace-test
 * ranks: 4
 * expect: no-race
 */
/* Intercommunicators (groups {0,2} and {1,3}): point-to-point to a remote-group rank, a Bcast
 * with MPI_ROOT, and an Allreduce, whose data, and so its edges, cross between the groups only. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 0, y = 0;
  MPI_Comm local, inter;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
  stamp_t pre = stamp();
  view_t v = view();
  /* world 0 (group A rank 0) -> world 3 (group B rank 1) */
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, inter);
  if (rank == 3) MPI_Recv(&x, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE), v = view();
  check_hb(0, pre, 3, v, 1, "intercomm send -> receive (remote group rank translated)");
  check_hb(2, pre, 3, v, 0, "... and nobody else");
  pre = stamp();
  int root = rank % 2 == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Bcast(&x, 1, MPI_INT, root, inter);
  v = view();
  check_hb(0, pre, 1, v, 1, "intercomm Bcast: MPI_ROOT -> remote group");
  check_hb(0, pre, 2, v, 0, "intercomm Bcast: not to the root's own group");
  pre = stamp();
  MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter);
  v = view();
  check_hb(1, pre, 0, v, 1, "intercomm Allreduce: B -> A");
  check_hb(0, pre, 3, v, 1, "intercomm Allreduce: A -> B");
  check_hb(0, pre, 2, v, 0, "intercomm Allreduce: not within a group");
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  return clk_finish();
}
