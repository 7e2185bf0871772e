/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 33 34
 */
/* A buffer freed after its epoch and its memory reused: the old operation's region stays in
 * the filter, idle (rma/buffers.c), and must neither report the new owner's stores nor hide a
 * new put from the reused memory. Epoch 1 puts from p, completes, frees p; q (malloc'ed
 * afterwards, likely at p's address) is written freely, then put in epoch 2. A store to q while
 * that put is in flight is a race with it; twin (buf_reuse_freed_norace.c): the store after
 * the unlock. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, *base;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int *p = malloc(64 * sizeof(int));
    for (int i = 0; i < 64; i++) p[i] = i;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (int i = 0; i < 64; i += 8) MPI_Put(p + i, 8, MPI_INT, 1, i, 8, MPI_INT, win);
    MPI_Win_unlock(1, win);
    free(p);
    int *q = malloc(64 * sizeof(int));
    for (int i = 0; i < 64; i++) q[i] = -i; /* the old regions are idle: no race */
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(q + 8, 8, MPI_INT, 1, 0, 8, MPI_INT, win); /* PUT */
    q[9] = 7; /* STORE */
    MPI_Win_unlock(1, win);
    free(q);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
