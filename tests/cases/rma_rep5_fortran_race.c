/* hrace-test
 * ranks: 2
 * expect: race
 * pair: rma_rep5_fortran.f90:15 rma_rep5_fortran.f90:15
 * pair: rma_rep5_fortran.f90:15 rma_rep5_fortran.f90:17
 * fortran: rma_rep5_fortran.f90
 */
/* rma_rep5_line_race through the Fortran binding: rank 0 gets into one buffer three times from
 * one Fortran line and then once from the next, all in flight at once. The C wrapper's return
 * address is in the binding library for both lines, so the hot repeat must not be keyed by it
 * (rma/ops.c hot_keep keeps one only when the return address is the application's line): the
 * second line's call goes the whole way (the probe walks to its line) and races with the
 * first line's gets. Keyed by the binding's address, it would be a repeat: pair 15 17 lost.
 * Twin: rma_rep5_fortran_norace.c. */
#include <mpi.h>

void rep5_gets(MPI_Fint win);

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    rep5_gets(MPI_Win_c2f(win));
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
