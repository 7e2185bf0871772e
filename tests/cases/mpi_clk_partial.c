/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Partial completion: MPI_Waitany and MPI_Testsome join the clocks of the requests they
 * complete and of no other. Rank 2 sends only after rank 1 has seen rank 0's message. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, a = 0, b = 0, idx = -1, out = 0, ids[2];
  MPI_Request r[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  stamp_t pre = stamp();
  view_t v1 = view(), v2 = v1;
  for (int round = 0; round < 2; round++) {
    pre = stamp();
    if (rank == 0) {
      MPI_Send(&a, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      invisible_barrier();
      invisible_barrier();
    } else if (rank == 2) {
      invisible_barrier();
      invisible_barrier();
      MPI_Send(&b, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else {
      MPI_Irecv(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]);
      MPI_Irecv(&b, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &r[1]);
      invisible_barrier();
      if (round == 0) {
        MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE);
      } else {
        do MPI_Testsome(2, r, &out, ids, MPI_STATUSES_IGNORE); while (out == 0);
        idx = ids[0];
      }
      v1 = view();
      invisible_barrier();
      MPI_Wait(&r[1 - idx], MPI_STATUS_IGNORE);
      v2 = view();
    }
    const char *w = round == 0 ? "MPI_Waitany" : "MPI_Testsome";
    check_hb(0, pre, 1, v1, 1, w);
    check_hb(2, pre, 1, v1, 0, w);
    check_hb(2, pre, 1, v2, 1, "the other request, by its own Wait");
  }
  return clk_finish();
}
