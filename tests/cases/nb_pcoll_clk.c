/* hrace-test
 * ranks: 3
 * expect: no-race
 * mpi: mpich
 */
/* MPI-4 persistent collectives order as their non-blocking forms, once per round: the signal
 * at each MPI_Start, the wait when that round's request completes. The initialisation orders
 * nothing, nor does a round's Start before its completion; a later round carries its own
 * Start's clock, not an earlier one's. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 1, y = 0;
  MPI_Request bar, red;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  stamp_t pre = stamp();
  MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &bar);
  MPI_Reduce_init(&x, &y, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &red);
  view_t v = view();
  check_hb(0, pre, 1, v, 0, "MPI_Barrier_init / MPI_Reduce_init order nothing");
  for (int round = 0; round < 2; round++) {
    pre = stamp();
    MPI_Start(&bar);
    stamp_t mid = stamp();
    invisible_barrier();
    view_t before = view();
    MPI_Wait(&bar, MPI_STATUS_IGNORE);
    view_t after = view();
    check_hb(0, pre, 1, before, 0, "MPI_Barrier_init round: nothing known before the Wait");
    check_hb(0, pre, 1, after, 1, "MPI_Barrier_init round: rank 0 before its Start -> rank 1 after the Wait");
    check_hb(2, pre, 0, after, 1, "MPI_Barrier_init round: rank 2 before its Start -> rank 0 after the Wait");
    check_hb(0, mid, 1, after, 0, "MPI_Barrier_init round: rank 0 after its Start is not ordered");
    pre = stamp();
    MPI_Start(&red);
    MPI_Wait(&red, MPI_STATUS_IGNORE);
    after = view();
    check_hb(0, pre, 1, after, 1, "MPI_Reduce_init round: 0 -> root 1");
    check_hb(1, pre, 0, after, 0, "MPI_Reduce_init round: root 1 -/-> 0");
    check_hb(1, pre, 2, after, 0, "MPI_Reduce_init round: root 1 -/-> 2");
  }
  MPI_Request_free(&bar);
  MPI_Request_free(&red);
  return clk_finish();
}
