/* hrace-test
 * ranks: 4
 * expect: no-race
 */
/* Neighbourhood collectives on a periodic 1-D Cartesian ring: a rank learns its two
 * neighbours' clocks, not the rank across the ring. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, dims[1] = { 4 }, periods[1] = { 1 }, x = 0, out[2];
  MPI_Comm ring;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  stamp_t pre = stamp();
  MPI_Neighbor_allgather(&x, 1, MPI_INT, out, 1, MPI_INT, ring);
  view_t v = view();
  check_hb(1, pre, 0, v, 1, "neighbour 1 -> 0");
  check_hb(3, pre, 0, v, 1, "neighbour 3 -> 0");
  check_hb(2, pre, 0, v, 0, "rank 2 is not a neighbour of 0");
  MPI_Request r;
  pre = stamp();
  MPI_Ineighbor_alltoall(out, 1, MPI_INT, out, 1, MPI_INT, ring, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  v = view();
  check_hb(0, pre, 3, v, 1, "MPI_Ineighbor_alltoall: neighbour 0 -> 3");
  check_hb(1, pre, 3, v, 0, "MPI_Ineighbor_alltoall: 1 is not a neighbour of 3");
  MPI_Comm_free(&ring);
  return clk_finish();
}
