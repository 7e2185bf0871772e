/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 26 27
 * count: 26 27 1
 * pair: 30 31
 * count: 30 31 1
 */
/* One race, one report (issue 22 item 5): rank 0 gets into its own window, so the origin
 * buffer is window memory. A store to it while the get is in flight is one race (reported by
 * the window's shadow, with the window's offsets), not one "remote" and one "origin-buffer"
 * report; so are two gets in flight into overlapping bytes of the own window. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(base + 4, 2, MPI_INT, 1, 0, 2, MPI_INT, win); /* GET */
    base[5] = 3; /* STORE */
    MPI_Win_unlock(1, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(base, 2, MPI_INT, 1, 0, 2, MPI_INT, win); /* GET2 */
    MPI_Get(base + 1, 2, MPI_INT, 1, 2, 2, MPI_INT, win); /* GET3 */
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
