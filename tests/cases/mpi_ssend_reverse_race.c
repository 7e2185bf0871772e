/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 24 30
 */
/* The twin of mpi_ssend_reverse_norace.c: rank 1 posts the receive before it puts, so rank 0's
 * MPI_Ssend may return (its message matched) before the put: the backward edge covers what
 * rank 1 did before the post only, and rank 0's load races with the put. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0;
  MPI_Win win;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Irecv(&t, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    MPI_Ssend(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    PMPI_Barrier(MPI_COMM_WORLD);
    x = base[0];
  }
  if (rank == 1) PMPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
