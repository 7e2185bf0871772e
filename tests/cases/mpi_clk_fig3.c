/* hrace-test
 * ranks: 4
 * expect: no-race
 */
/* Seed 001 Fig. 3: after an all-to-all over all four ranks, rank 3 tells rank 2 something;
 * then only ranks 0, 1, 2 synchronise all-to-all. Ranks 0 and 1 are ordered after rank 3's
 * send through rank 2: the sparse exchange must carry rank 3's entry although rank 3 is not in
 * the group. Rank 3 itself learns nothing from the sub-group. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 0;
  MPI_Comm sub;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  MPI_Comm_split(MPI_COMM_WORLD, rank < 3 ? 0 : MPI_UNDEFINED, rank, &sub);
  MPI_Barrier(MPI_COMM_WORLD);
  stamp_t s3 = stamp(), s0 = s3;
  view_t v = view();
  if (rank == 3) {
    MPI_Send(&x, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  } else {
    if (rank == 2) MPI_Recv(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s0 = stamp();
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, sub);
    v = view();
  }
  check_hb(3, s3, 0, v, 1, "outsider rank 3 -> rank 0 after the sub-group all-to-all");
  check_hb(3, s3, 1, v, 1, "outsider rank 3 -> rank 1 after the sub-group all-to-all");
  check_hb(0, s0, 1, v, 1, "member 0 -> member 1");
  check_hb(0, s0, 3, view(), 0, "the outsider learns nothing from the sub-group");
  if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
  return clk_finish();
}
