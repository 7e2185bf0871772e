/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 33 39
 */
/* Racy twin of rma_ext_get_store_norace.c. Rank 1 reads rank 0's window with MPI_Get in a
 * lock_all epoch and flushes; rank 0 then stores into the same elements, one at a time in a
 * permuted order (no loop hoisting, and the operation covers no whole span: each store goes
 * through the first-touch path), with
 * nothing ordering the get before the stores. The get's record is a previous *read* of another
 * process: the first-touch path may take it only when the view's global part orders it
 * (clocks/shadow.c, qfact QK_EXT); here it must not. The verdict holds whichever of the two
 * comes first; rank 0's pause mostly lets the record arrive and complete first, so that the
 * stores meet it in the first-touch path (with the record second, applying it finds the race:
 * with QK_EXT taken as ordered always, this case failed 5 runs of 5 with the pause). */
#include <mpi.h>
#include <unistd.h>

enum { N = 64, LO = 3, M = 8 };   /* the operation covers [LO, LO + M): no whole span */

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *w, buf[N];
  MPI_Win win;
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
  for (int k = 0; k < N; k++) w[(k * 37) % N] = k;   /* single stores, no span summary */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 1) {
    MPI_Get(buf, M, MPI_DOUBLE, 0, LO, M, MPI_DOUBLE, win);
    MPI_Win_flush(0, win);
  }
  if (rank == 0) {
    usleep(200000);   /* mostly lets the record arrive first (the verdict holds either way) */
    for (int k = 0; k < M; k++)
      w[LO + (k * 5) % M] = -k;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
