/* hrace-test
 * ranks: 2
 * expect: race
 * pair: rma_fortran_win.f90:28 rma_fortran_win.f90:41
 * fortran: rma_fortran_win.f90
 */
/* A Fortran program in all but main (rma_fortran_win.f90): window creation, epoch, put,
 * messages and the load are Fortran. Rank 1 loads before it waits for rank 0's message, so the put is not ordered before
 * the load: a race. Twin: rma_fortran_win_norace.c. */
#include <mpi.h>

void fmain(int ordered);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fmain(0);
  MPI_Finalize();
  return 0;
}
