/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The access filter's page table (access/filter.h) answers per 4 KiB page; inside a page with a
 * tracked byte the exact ranges decide. Rank 0 gets four doubles into d[1..4] of a heap array,
 * after loops over the rest of the page (e, and d's ends) that leave the thread's gap cache
 * warm there; while the get is in flight it stores to d[0] and d[5], the bytes just before and
 * just after the buffer (no race); the store to d[4], its last element, comes after the flush:
 * no race. Twin: gate_edge_race.c, the store to d[4] before the flush. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  double *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *e = aligned_alloc(4096, 4096), *d = e + 256;   /* one page: e[0..256), d[0..6) */
  for (int i = 0; i < 262; i++) e[i] = i;
  MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 8; i++) x[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < 256; i++) s += e[i];
      s += d[0] + d[5];
      d[0] = s;
      d[5] = s;
      MPI_Get(&d[1], 4, MPI_DOUBLE, 1, 0, 4, MPI_DOUBLE, win);
      for (int i = 0; i < 256; i++) e[i] += 1;
      d[0] = 1;
      d[5] = 2;
      MPI_Win_flush_all(win);
      if (r == 1) d[4] = 3;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %g %g\n", rank, s, d[4]);
  MPI_Win_free(&win);
  free(e);
  MPI_Finalize();
  return 0;
}
