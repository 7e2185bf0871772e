/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Non-blocking collectives: the signal at the call, the wait at the completing Wait / Test.
 * Between the call and the Wait a rank has learnt nothing; what it does there is not ordered
 * before the others' Wait. Two collectives in flight at once use different buffers (a buffer
 * one of them writes must not be used by the other: nb_coll_race). */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 1, y = 0, z = 1, flag = 0;
  MPI_Request r[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  stamp_t pre = stamp();
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  stamp_t mid = stamp();
  invisible_barrier();
  view_t before = view();
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  view_t after = view();
  check_hb(0, pre, 1, before, 0, "MPI_Ibarrier: nothing known before the Wait");
  check_hb(0, pre, 1, after, 1, "MPI_Ibarrier: rank 0 before it -> rank 1 after the Wait");
  check_hb(0, mid, 1, after, 0, "MPI_Ibarrier: rank 0 between call and Wait is not ordered");
  pre = stamp();
  MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Ibcast(&z, 1, MPI_INT, 2, MPI_COMM_WORLD, &r[1]);   /* not x: the Iallreduce reads it */
  while (!flag) MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
  after = view();
  check_hb(2, pre, 0, after, 1, "MPI_Iallreduce + MPI_Ibcast by MPI_Testall: 2 -> 0");
  check_hb(0, pre, 1, after, 1, "MPI_Iallreduce by MPI_Testall: 0 -> 1");
  pre = stamp();
  MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  after = view();
  check_hb(0, pre, 1, after, 1, "MPI_Ireduce: 0 -> root 1");
  check_hb(1, pre, 0, after, 0, "MPI_Ireduce: root 1 -/-> 0");
  return clk_finish();
}
