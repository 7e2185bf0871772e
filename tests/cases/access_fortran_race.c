/* hrace-test
 * ranks: 2
 * expect: race
 * fortran: access_fortran.f90
 * pair: 32 access_fortran.f90:11
 * pair: 32 access_fortran.f90:19
 * pair: 32 access_fortran.f90:27
 */
/* Fortran loads and stores (access_fortran.f90, built with hrace-fort) on rank 1's window while
 * rank 0's put over it is in flight. Each Fortran routine touches bytes of its own, so every
 * racing pair has its own location (after two unordered writes to one byte the shadow keeps the
 * later one only: docs/design.md). Twin: access_fortran_norace.c. */
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
    MPI_Put(src, 32, MPI_DOUBLE, 1, 0, 32, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    fstore(mem, 8);
    fzero(mem + 8, 8);
    printf("rank 1: %g\n", fsum(mem + 16, 8));   /* its own bytes: see docs/design.md */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
