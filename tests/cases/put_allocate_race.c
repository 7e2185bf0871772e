/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 21 24
 */
/* Issue 2's first race: rank 0 puts into rank 1's MPI_Win_allocate window under an exclusive
 * lock; rank 1 loads the location before the barrier that would order it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, v = 42;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else {
    int x = base[0];
    printf("read %d\n", x);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
