/* hrace-test
 * ranks: 2
 * expect: race
 * pair: rma_fortran_f08_fence.f90:33 rma_fortran_f08_fence.f90:36
 * fortran: rma_fortran_f08_fence.f90
 */
/* A `use mpi_f08` program in all but main (rma_fortran_f08_fence.f90): MPI_Init, the window
 * (MPI_Win_allocate), the fences, the put and the load are Fortran. Rank 1 loads the element
 * rank 0 puts in the same fence epoch: a race. Without the routing of src/mpi/fortran.c
 * (HRACE_NO_FORTRAN_ROUTE=1) hrace's MPI_Init never runs, on either MPI, and the race goes
 * unseen. Twin: rma_fortran_f08_fence_norace.c. */
#include <mpi.h>

void fmain(int ordered);

void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(void) {
  fmain(0);
  return 0;
}
