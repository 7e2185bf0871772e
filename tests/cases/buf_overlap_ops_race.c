/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 28 29
 */
/* Buffers overlapping across operations of one epoch, among many others in flight: puts from
 * overlapping heap buffers read them (no race), and a get writing into bytes that an earlier
 * put of the same epoch still reads is a race with that put, found at the get's issue. Twin
 * (buf_overlap_ops_norace.c): the get's buffer starts right after the put's. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, *base;
  enum { N = 256 };
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * 8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  int *src = malloc(N * 8 * sizeof(int));
  for (int i = 0; i < N * 8; i++) src[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (int i = 0; i < N - 4; i++) /* overlapping reads: no race */
      MPI_Put(src + 4 * i, 8, MPI_INT, 1, 8 * i, 8, MPI_INT, win);
    MPI_Put(src + 4 * N, 4, MPI_INT, 1, 8 * (N - 3), 4, MPI_INT, win); /* PUT */
    MPI_Get(src + 4 * N + 2, 4, MPI_INT, 1, 8 * (N - 2), 4, MPI_INT, win); /* GET */
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  free(src);
  MPI_Finalize();
  return 0;
}
