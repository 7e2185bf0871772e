/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 27 34
 * fortran: rma_fortran_f08.f90
 */
/* Rank 0 puts into rank 2's window; the only thing that can order the put before rank 2's load
 * is a token passed 0 -> 1 -> 2 by Fortran `use mpi_f08` calls (rma_fortran_f08.f90; on Open
 * MPI routed to hrace by src/mpi/fortran.c, on MPICH through the C symbols). Rank 0 passes the
 * token on before the unlock that completes its put, so rank 2's load after the chain is not
 * ordered after the put: a race. Twin: rma_fortran_f08_norace.c. */
#include <mpi.h>
#include <stdio.h>

void fchain(int rank);

int main(int argc, char **argv) {
  int rank, *x, v = 5, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
    MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
    fchain(rank);
    MPI_Win_unlock(2, win);
  } else {
    fchain(rank);
  }
  if (rank == 2)
    s = *x;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
