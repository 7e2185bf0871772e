/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 33 37
 * env: HRACE_OPTIONS=wire=always
 */
/* A collective on a sub-communicator makes no base (only collectives of every rank do): after
 * rank 0 and rank 1 meet in a barrier of their half, rank 1's frame to rank 2 is still
 * encoded against the world barrier before, and must carry rank 0's entry the half's barrier
 * raised. Here rank 0 puts into rank 2's window after that barrier: nothing orders the put
 * before rank 2's load. */
#include <mpi.h>
#include <stdio.h>

/* Orders ranks in real time without hrace seeing it (PMPI is not intercepted). */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0;
  MPI_Win win;
  MPI_Comm half;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank < 2) MPI_Barrier(half);
  if (rank == 1) MPI_Send(&t, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  if (rank == 2) MPI_Recv(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
    MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
    MPI_Win_unlock(2, win);
  }
  invisible_barrier();
  if (rank == 2) x = base[0];
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, t);
  MPI_Win_free(&win);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
