/* hrace-test
 * ranks: 2
 * expect: no-race
 * fortran: access_fortran.f90
 */
/* As access_fortran_race.c, but rank 0's put covers only the second half of the window while
 * the Fortran code works on the first; it works on the second only after the barrier. */
#include <mpi.h>
#include <stdio.h>

void fstore(double *a, int n);
void fzero(double *a, int n);
double fsum(const double *a, int n);

static double mem[32];   /* rank 1's window */

int main(int argc, char **argv) {
  int rank;
  double src[32] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(mem, sizeof mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 16, MPI_DOUBLE, 1, 16, 16, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    fstore(mem, 8);
    fzero(mem + 8, 8);
    printf("rank 1: %g\n", fsum(mem, 16));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) fstore(mem + 16, 16);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
