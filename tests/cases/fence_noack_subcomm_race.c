/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 35 36
 */
/* Twin of fence_noack_subcomm_norace: group rank 0 of each half reads its sub-window before
 * the fence that completes group rank 1's put into it. */
#include <mpi.h>
#include <stdio.h>

#define ITERS 25

int main(int argc, char **argv) {
  int rank, size, srank, *x, *y, s = 0;
  MPI_Comm half;
  MPI_Win win, all;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_rank(half, &srank);
  /* One half at a time: Open MPI names a window's shared-memory file after the
   * communicator's id, which both halves share (two at once fail in MPI_Win_create). */
  MPI_Alloc_mem(sizeof(int), MPI_INFO_NULL, &x);
  for (int h = 0; h < 2; h++) {
    if (rank % 2 == h) MPI_Win_create(x, sizeof(int), sizeof(int), MPI_INFO_NULL, half, &win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &y, &all);
  x[0] = y[0] = 0;
  MPI_Win_fence(0, win);
  MPI_Win_fence(0, all);
  for (int it = 0; it < ITERS; it++) {
    int v = it + rank;
    if (srank == 1) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    if (srank == 0) s += x[0];
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
    MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, all);
    MPI_Win_fence(0, all);
    s += y[0];
    MPI_Win_fence(0, all);
  }
  MPI_Win_fence(0, all);
  printf("%d\n", s);
  MPI_Win_free(&all);
  MPI_Win_free(&win);
  MPI_Free_mem(x);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
