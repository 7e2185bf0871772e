/* hrace-test
 * ranks: 2
 * expect: no-race
 * fortran: rma_fortran_win.f90
 */
/* A Fortran program in all but main (rma_fortran_win.f90): window creation, epoch, put,
 * messages and the load are Fortran. Rank 1 loads after MPI_Waitany completed rank 0's message, sent after the unlock:
 * no race. Twin: rma_fortran_win_race.c. */
#include <mpi.h>

void fmain(int ordered);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  fmain(1);
  MPI_Finalize();
  return 0;
}
