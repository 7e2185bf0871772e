/* hrace-test
 * ranks: 4
 * expect: no-race
 */
/* Every rank floods every other rank with records at once (4 x 3 x 4000 accumulates in one
 * epoch), so hrace's own connections run full in both directions while flush and unlock
 * acknowledgements come back (core/chan.h: replies have their own connection, so two
 * progress threads never wait on each other). Accumulates of one type do not race with each
 * other (MPI makes them atomic); each origin adds into its own slot of each target; the epochs
 * end before the barrier and the target reads after it: no race. Twin: rma_flood_race. */
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
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) sum += base[i];
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  if (rank == 0) printf("sum %d\n", sum);
  MPI_Finalize();
  return 0;
}
