/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Race-free twin of rma_ext_put_store_race.c: a barrier after rank 1's flush orders its put
 * before rank 0's stores. Rank 1 writes rank 0's window with MPI_Put in a
 * lock_all epoch and flushes; rank 0 then stores into the same elements, one at a time in a
 * permuted order (no loop hoisting: each store goes through the first-touch path). The put's
 * record is a previous *write* of another process, which the first-touch path takes here
 * (clocks/shadow.c, qfact QK_EXT): the view's global part orders it. */
#include <mpi.h>
#include <unistd.h>

enum { N = 64, LO = 3, M = 8 };   /* the operation covers [LO, LO + M): no whole span */

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *w, buf[N] = {0};
  MPI_Win win;
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
  for (int k = 0; k < N; k++) w[(k * 37) % N] = k;   /* single stores, no span summary */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 1) {
    MPI_Put(buf, M, MPI_DOUBLE, 0, LO, M, MPI_DOUBLE, win);
    MPI_Win_flush(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < M; k++)
      w[LO + (k * 5) % M] = -k;
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
