/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A put's origin array that the program computes on between epochs (bench/kernels/particles.c):
 * after each flush its region stays tracked, idle, and the origin's own loads and stores of it
 * are skipped by the thread that found it idle (access/thread.h, the idle cache) until the
 * filter's version changes. The third put makes the region busy again, so that version must
 * change: the store right after it, before the flush, would race with the put in flight. (With
 * the version left alone, the store finds its idle cache warm from the loop and is not
 * checked.) Here the store comes after the flush: no race. Twin: buf_idle_reuse_race.c. */
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
  MPI_Win_allocate(4096 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &g,
                   &win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    for (int it = 0; it < 3; it++) {
      for (int i = 0; i < 4096; i += 7) s += x[i];   /* the region idle: the cache warm */
      for (int i = 0; i < 4096; i += 5) x[i] += 1;
      if (it == 2) break;
      MPI_Put(x, 4096, MPI_DOUBLE, 1, 0, 4096, MPI_DOUBLE, win);
      MPI_Win_flush_all(win);
    }
    MPI_Put(x, 4096, MPI_DOUBLE, 1, 0, 4096, MPI_DOUBLE, win);
    for (int i = 0; i < 4096; i += 7) s += x[i];     /* reads of an origin buffer: no race */
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
