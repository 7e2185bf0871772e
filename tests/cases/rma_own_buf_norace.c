/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of rma_own_buf_race: an origin buffer in the own window is used only after the
 * unlock completed the get, a put's origin buffer there is only loaded while in flight, and
 * two gets into the own window do not overlap. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(base + 4, 2, MPI_INT, 1, 0, 2, MPI_INT, win);
    MPI_Win_unlock(1, win);
    base[5] = 3;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(base + 6, 1, MPI_INT, 1, 7, 1, MPI_INT, win);
    x = base[6];
    MPI_Get(base, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Get(base + 1, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
