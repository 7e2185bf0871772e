/* hrace-test
 * ranks: 2
 * expect: no-race
 * fortran: rma_fortran_mpi.f90
 */
/* Twin of rma_fortran_mpi_race.c: rank 1 loads after the Fortran barrier that follows rank
 * 0's Fortran unlock, so the put is ordered before the load: no race (and a barrier hrace did
 * not see on one side would leave the two ranks' clock exchanges unmatched). */
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
  if (rank == 0) fput((int)MPI_Win_c2f(win), &v, 1);
  fbarrier();
  if (rank == 1) s = *x;
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
