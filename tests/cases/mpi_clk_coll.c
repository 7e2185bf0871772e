/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Every collective class of seed 001 Table II at clock level (rank 0 is the root):
 * one-to-all orders only the root before the others, all-to-one only the others before the
 * root, all-to-all everyone before everyone. */
#include "mpi_clk.h"

static stamp_t s[3];
static view_t v[3];

/* Run op; stamp before it and view after it at every rank; check all pairs against want. */
#define PAIRS(op, want, name)                                                            \
  do {                                                                                   \
    stamp_t s_ = stamp();                                                                \
    op;                                                                                  \
    view_t v_ = view();                                                                  \
    for (int a = 0; a < 3; a++)                                                          \
      for (int b = 0; b < 3; b++)                                                        \
        if (a != b) check_hb(a, s_, b, v_, (want)[a][b], name);                           \
  } while (0)

int main(int argc, char **argv) {
  int rank, x = 1, all[3] = { 1, 1, 1 }, out[3];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  const int one2all[3][3] = { { 0, 1, 1 }, { 0, 0, 0 }, { 0, 0, 0 } };
  const int all2one[3][3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 } };
  const int all2all[3][3] = { { 0, 1, 1 }, { 1, 0, 1 }, { 1, 1, 0 } };
  const int scan[3][3] = { { 0, 1, 1 }, { 0, 0, 1 }, { 0, 0, 0 } };
  PAIRS(MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD), one2all, "MPI_Bcast");
  PAIRS(MPI_Scatter(all, 1, MPI_INT, &x, 1, MPI_INT, 0, MPI_COMM_WORLD), one2all, "MPI_Scatter");
  PAIRS(MPI_Reduce(&x, out, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), all2one, "MPI_Reduce");
  PAIRS(MPI_Gather(&x, 1, MPI_INT, out, 1, MPI_INT, 0, MPI_COMM_WORLD), all2one, "MPI_Gather");
  PAIRS(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), all2all, "MPI_Allreduce");
  PAIRS(MPI_Alltoall(all, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD), all2all, "MPI_Alltoall");
  PAIRS(MPI_Allgather(&x, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD), all2all, "MPI_Allgather");
  PAIRS(MPI_Reduce_scatter_block(all, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), all2all, "MPI_Reduce_scatter_block");
  PAIRS(MPI_Barrier(MPI_COMM_WORLD), all2all, "MPI_Barrier");
  PAIRS(MPI_Scan(&x, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), scan, "MPI_Scan (prefix)");
  (void)s, (void)v;
  return clk_finish();
}
