/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of put_allocate_race: rank 1 loads after the barrier, which rank 0 enters after its
 * unlock completed the put: ordered, no race. */
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
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("read %d\n", base[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
