/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Failed, cancelled and freed requests under MPI_ERRORS_RETURN: invalid arguments are MPI's to
 * report (hrace neither crashes nor frames them), a truncated receive joins nothing, a cancelled
 * receive joins nothing, and an active Isend freed with MPI_Request_free still delivers its
 * data and its clock. */
#include "mpi_clk.h"

int main(int argc, char **argv) {
  int rank, x = 0, four[4] = { 1, 2, 3, 4 }, cancelled = 0, cls = 0;
  MPI_Status st;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  clk_init();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS) printf("not ok - send to rank 99 succeeded\n"), clk_failed = 1;
  rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 1 - rank, 0, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS) printf("not ok - send of MPI_DATATYPE_NULL succeeded\n"), clk_failed = 1;

  stamp_t pre = stamp();
  view_t v = view();
  if (rank == 0) MPI_Send(four, 4, MPI_INT, 1, 1, MPI_COMM_WORLD);
  else {
    rc = MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE) printf("not ok - truncation: error class %d\n", cls), clk_failed = 1;
    v = view();
  }
  check_hb(0, pre, 1, v, 0, "a truncated receive joins nothing");

  if (rank == 1) {
    MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &cancelled);
    if (!cancelled) printf("not ok - receive not cancelled\n"), clk_failed = 1;
    v = view();
  }
  check_hb(0, pre, 1, v, 0, "a cancelled receive joins nothing");

  pre = stamp();
  if (rank == 0) {
    x = 42;
    MPI_Isend(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r);
    MPI_Request_free(&r);
  } else {
    MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
    if (x != 42) printf("not ok - freed Isend delivered %d\n", x), clk_failed = 1;
    v = view();
  }
  check_hb(0, pre, 1, v, 1, "a freed Isend still carries its clock");
  return clk_finish();
}
