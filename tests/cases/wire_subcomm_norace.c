/* hrace-test
 * ranks: 4
 * expect: no-race
 * env: HRACE_OPTIONS=wire=always
 */
/* The twin of wire_subcomm_race: rank 0 puts into rank 2's window before the barrier of its
 * half; rank 1's message to rank 2, encoded against the world barrier before (a sub-
 * communicator's collective makes no base), carries rank 0's entry that barrier raised, and
 * so orders the put before rank 2's load. */
#include <mpi.h>
#include <stdio.h>

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
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 2, 0, win);
    MPI_Put(&v, 1, MPI_INT, 2, 0, 1, MPI_INT, win);
    MPI_Win_unlock(2, win);
  }
  if (rank < 2) MPI_Barrier(half);
  if (rank == 1) MPI_Send(&t, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  if (rank == 2) {
    MPI_Recv(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    x = base[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, t);
  MPI_Win_free(&win);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
