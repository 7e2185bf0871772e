/* hrace-test
 * ranks: 2
 * expect: no-race
 * fortran: rma_fortran_f08_fence.f90
 */
/* A `use mpi_f08` program in all but main (rma_fortran_f08_fence.f90): MPI_Init, the window
 * (MPI_Win_allocate), the fences, the put and the load are Fortran. A fence separates rank 0's
 * put from rank 1's load: no race, if hrace sees the Fortran MPI_Win_fence (on both MPIs it
 * calls PMPI_Win_fence; with MPI_Init routed but not the fences, the put draws a diagnostic,
 * "outside an access epoch", and the case fails). Twin: rma_fortran_f08_fence_race.c. */
#include <mpi.h>

void fmain(int ordered);

void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(void) {
  fmain(1);
  return 0;
}
