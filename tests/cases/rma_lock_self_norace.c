/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_lock_self_race: the target's accesses are inside an exclusive lock on itself, and
 * rank 0's epoch is exclusive too. Whichever epoch hrace grants first, its unlock orders it
 * before the other's lock; rank 1's store waits for the barrier after rank 0's unlock. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 3, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
  if (rank == 0) MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
  else s += x[0];
  MPI_Win_unlock(1, win);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) x[1] = 4;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
