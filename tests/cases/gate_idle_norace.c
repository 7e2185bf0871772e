/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The idle-buffer cache asked in hrace__access_more (access/tsan.c) outside the window part the
 * thread met last: a put's origin array x stays tracked and idle between epochs, and a loop that
 * reads x and writes the window g in turn leaves the thread's window part on g and its idle part
 * on x, so each load of x is let out by the idle cache alone. The third put makes x busy again
 * (the filter's version changes); the store to x[3] right after it, with the window part still
 * on g, must miss the idle cache; here it comes after the flush: no race. Twin:
 * gate_idle_race.c, the store before the flush. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  double *g, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *x = malloc(4096 * sizeof(double));
  for (int i = 0; i < 4096; i++) x[i] = i;
  MPI_Win_allocate(8192 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &g,
                   &win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    for (int it = 0; it < 3; it++) {
      for (int i = 0; i < 4096; i += 7) {
        s += x[i];          /* the region idle: let out by the idle cache */
        g[4096 + i] = s;    /* window memory (this rank's, no remote access there) */
      }
      if (it == 2) break;
      MPI_Put(x, 4096, MPI_DOUBLE, 1, 0, 4096, MPI_DOUBLE, win);
      MPI_Win_flush_all(win);
    }
    MPI_Put(x, 4096, MPI_DOUBLE, 1, 0, 4096, MPI_DOUBLE, win);
    g[4100] = s;
    MPI_Win_flush_all(win);
    x[3] = s;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %g\n", rank, s);
  MPI_Win_free(&win);
  free(x);
  MPI_Finalize();
  return 0;
}
