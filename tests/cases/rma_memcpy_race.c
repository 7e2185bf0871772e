/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 25 31
 * pair: 26 32
 * pair: 27 28
 */
/* Window memory and origin buffers reached through memcpy / memset (libc calls, which hrace
 * interposes): rank 1 copies into its window while rank 0's put lands there and clears a range
 * that rank 0 reads; rank 0 copies out of a buffer an in-flight Get is still writing. */
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
    MPI_Put(v, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
    MPI_Get(r, 4, MPI_INT, 1, 4, 4, MPI_INT, win);
    MPI_Get(r2, 4, MPI_INT, 1, 8, 4, MPI_INT, win);
    memcpy(out, r2, sizeof out);
    MPI_Win_flush(1, win);
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
