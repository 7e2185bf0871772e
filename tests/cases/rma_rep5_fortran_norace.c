/* hrace-test
 * ranks: 2
 * expect: no-race
 * fortran: rma_rep5_fortran.f90
 */
/* Twin of rma_rep5_fortran_race.c, race-free: the same two Fortran lines accumulate (reading
 * their origin buffer only) instead of getting into one buffer; rank 1 reads x[0] only after
 * the barrier that follows rank 0's epoch. */
#include <mpi.h>
#include <stdio.h>

void rep5_accs(MPI_Fint win);

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    rep5_accs(MPI_Win_c2f(win));
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1 && x[0] != 4) printf("x[0] = %d\n", x[0]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
