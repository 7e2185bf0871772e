/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* An origin buffer that lies wholly in another window of the process (win2, over memory the
 * program owns) has no filter range of its own while win2's shadow answers for it
 * (rma/buffers.c, issue). win2 is freed while the put on win1 is still in flight: the buffer
 * must get its own range then (window_leaving), or the store after MPI_Win_free, still before
 * the put completes, is missed. Twin (buf_win_freed_norace.c): the store after the unlock. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, *base;
  MPI_Win win1, win2;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win1);
  int *mem = malloc(16 * sizeof(int));
  for (int i = 0; i < 16; i++) mem[i] = i;
  MPI_Win_create(mem, 16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win2);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win1);
    MPI_Put(mem + 4, 4, MPI_INT, 1, 0, 4, MPI_INT, win1); /* PUT */
  }
  MPI_Win_free(&win2);
  if (rank == 0) {
    MPI_Win_unlock(1, win1);
    mem[5] = -1; /* STORE */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, mem[5]);
  MPI_Win_free(&win1);
  free(mem);
  MPI_Finalize();
  return 0;
}
