/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_memcpy_race: the copies and the memset touch bytes no operation touches (the
 * memcpy stops short of the put, the memset lands beside the Get, the copy out of the Get's
 * buffer waits for the flush). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, *x, v[4] = {1, 2, 3, 4}, r[4] = {0}, r2[4] = {0}, out[4], src[4] = {5, 6, 7, 8};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  memset(x, 0, 16 * sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(v, 2, MPI_INT, 1, 0, 2, MPI_INT, win);
    MPI_Get(r, 3, MPI_INT, 1, 4, 3, MPI_INT, win);
    MPI_Get(r2, 4, MPI_INT, 1, 8, 4, MPI_INT, win);
    MPI_Win_flush(1, win);
    memcpy(out, r2, sizeof out);
  } else {
    memcpy(x + 2, src, 2 * sizeof(int));
    memset(x + 7, 1, sizeof(int));
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", r[0], out[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
