/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_rep5_disp_race: rank 1 stores to x[64] only after the barrier that follows rank
 * 0's epoch, so the accumulate there is ordered before it.
 *
 * The hot repeat keeps the displacements its run counted twice by residue (mod 64, rma/ops.c
 * hot_t): a slot holds one displacement, compared whole. Rank 0 accumulates into x[0] five times
 * from one line (from the third call on, hot repeats), then once into x[64], the same residue:
 * that call is a first one and goes the whole way, so its record meets rank 1's unordered store
 * to x[64]. A slot that answered for its residue (displacement 0 for 64) would make it a repeat:
 * no record, the race lost. Accumulates read their origin buffer only: no race there. */
#include <mpi.h>

int main(int argc, char **argv) {
  int rank, *x, one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(128 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 128; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 6; i++) {
      MPI_Aint d = i < 5 ? 0 : 64;
      MPI_Accumulate(&one, 1, MPI_INT, 1, d, 1, MPI_INT, MPI_SUM, win);
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) x[64] = 5;   /* after rank 0's epoch: ordered by the barrier */
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
