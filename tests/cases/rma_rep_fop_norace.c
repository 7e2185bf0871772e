/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Repeated calls that write an origin-side buffer (docs/rma.md, "Repeated operations"): the
 * second identical MPI_Fetch_and_op is checked against the first, since both write the same
 * result buffer while in flight, a race at the origin. (An accumulate, which only reads its
 * buffer, is a repeat from its second call on: rma_rep_disp_race.) Race-free twin of
 * rma_rep_fop_race: each call completes locally before the next. */
#include <mpi.h>

long one = 1, res;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 4; i++) {
      MPI_Fetch_and_op(&one, &res, MPI_LONG, 1, 0, MPI_SUM, win);
      MPI_Win_flush_local(1, win);
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
