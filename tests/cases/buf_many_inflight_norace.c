/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Many operations in flight from distinct heap buffers in one epoch (bench/rma/manyputs.c's
 * pattern): each contiguous buffer keeps its byte range inside its record (rma/buffers.c, no
 * allocation per operation), and records come from slabs. A store to the 700th buffer while its
 * put is in flight, after 1000 other puts and a get into an unrelated buffer, is a race with
 * that put; the same store after MPI_Win_unlock_all is not (twin: buf_many_inflight_norace.c).
 * Loads of in-flight put buffers are no race either. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, *base;
  enum { N = 1024 };
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate((N + 8) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  int *src = malloc(N * 16 * sizeof(int)), got[4], sum = 0;
  for (int i = 0; i < N * 16; i++) src[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < N; i++) {
      if (i == 700) MPI_Put(src + 16 * i, 2, MPI_INT, 1, N, 2, MPI_INT, win); /* PUT */
      else MPI_Put(src + 16 * i, 1, MPI_INT, 1, i, 1, MPI_INT, win);
    }
    MPI_Get(got, 4, MPI_INT, 1, N + 4, 4, MPI_INT, win);
    for (int i = 0; i < N; i += 3) sum += src[16 * i];
    MPI_Win_unlock_all(win);
    src[16 * 700 + 1] = -1; /* STORE */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, sum);
  MPI_Win_free(&win);
  free(src);
  MPI_Finalize();
  return 0;
}
