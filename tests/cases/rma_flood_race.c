/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 27 31
 */
/* Twin of rma_flood_norace (the same flood of accumulates in both directions), but each
 * target reads its slots right after its own unlock_all, which orders none of the other
 * ranks' accumulates: a race on every slot, all of one pair of lines. */
#include <mpi.h>
#include <stdio.h>

#define N 4000

int main(int argc, char **argv) {
  int rank, size, *base, sum = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < size; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < N; i++)
    for (int t = 0; t < size; t++)
      if (t != rank) {
        MPI_Accumulate(&rank, 1, MPI_INT, t, rank, 1, MPI_INT, MPI_SUM, win);
        if (i % 1000 == 999) MPI_Win_flush(t, win);   /* acknowledged mid-flood */
      }
  MPI_Win_unlock_all(win);
  for (int i = 0; i < size; i++) sum += base[i];
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  if (rank == 0) printf("sum %d\n", sum);
  MPI_Finalize();
  return 0;
}
