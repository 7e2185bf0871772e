/* hrace-test
 * ranks: 2
 * expect: race
 * fortran: rma_fortran_mpi.f90
 * pair: 27 rma_fortran_mpi.f90:14
 */
/* Rank 0's put comes from Fortran (MPI_Win_lock / MPI_Put / MPI_Win_unlock through `use mpi`,
 * rma_fortran_mpi.f90); rank 1 loads its window before the (Fortran) barrier that would order
 * the two. Twin: rma_fortran_mpi_norace.c. */
#include <mpi.h>
#include <stdio.h>

void fput(int fwin, int *v, int target);
void fbarrier(void);

int main(int argc, char **argv) {
  int rank, *x, v = 5, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  fbarrier();
  if (rank == 0)
    fput((int)MPI_Win_c2f(win), &v, 1);
  else
    s = *x;
  fbarrier();
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
