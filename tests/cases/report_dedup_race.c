/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 27 27
 * count: 27 27 3999
 */
/* Dedup: one race inside a loop of 1000 iterations on 4 ranks is reported once, with its
 * count. Every rank puts into the same int of rank 0's window 1000 times in one lock_all
 * epoch without a flush, so each put races with the put before it at that location (one
 * origin's puts are unordered until completion; shared locks order nothing). Rank 0's
 * progress thread applies the records one at a time, and each is checked against the last
 * write only: 4 x 1000 puts give exactly 3999 occurrences of the race (27, 27) of kind
 * rma-rma, whatever the interleaving. */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, *base, value;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  value = rank;                     /* the origin buffer is only read while puts are in flight */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < 1000; i++)
    MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
