/* Many gets into one buffer in one epoch (issue 22 item 7): each get after the first races
 * with the ones still in flight (one reported pair); memory must stay bounded by the distinct
 * byte ranges, time within 2x of the plain run. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n = argc > 1 ? atoi(argv[1]) : 100000, *base, buf[4];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime(), lock = 0, loop = 0, unlock = 0;
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    loop = MPI_Wtime();
    lock = loop - t;
    for (int i = 0; i < n; i++) MPI_Get(buf, 1, MPI_INT, 1, i % 64, 1, MPI_INT, win);
    unlock = MPI_Wtime();
    loop = unlock - loop;
    MPI_Win_unlock_all(win);
    unlock = MPI_Wtime() - unlock;
  }
  t = MPI_Wtime() - t;
  /* The epoch's wall time third (bench/rma/ab.sh), then lock_all's and unlock_all's (round trips
   * to hrace's progress thread, which dominate on a loaded machine), the loop's alone last. */
  if (rank == 0)
    printf("%d gets: %.1f ms (%.2f us per get) %d lock_all %.3f unlock_all %.3f loop %.2f\n", n,
           t * 1e3, t * 1e6 / n, buf[0], lock * 1e3, unlock * 1e3, loop * 1e3);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
