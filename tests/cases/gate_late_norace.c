/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Memory that becomes tracked while another thread has met it untracked (access/filter.h: the
 * page table, and the per-thread gap cache behind it). Rank 0's OpenMP thread 1 reads y and z
 * first: y shares a page with an idle get buffer (b, tracked: the thread caches the gap around
 * y), z lies on pages with no tracked byte (the page table lets its loads out). Thread 0 then
 * gets into both; thread 1 reads other elements of each while the gets are in flight (no race),
 * and stores to each only after thread 0's flush and an OpenMP barrier: no race. Twin:
 * gate_late_race.c, the stores before the flush. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, provided;
  double *x, s0 = 0, s1 = 0;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *b = aligned_alloc(4096, 4096), *y = b + 64;
  double *z = malloc(1 << 20);
  for (int i = 0; i < 512; i++) b[i] = i;
  for (int i = 0; i < 1024; i++) z[i] = i;
  MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 8; i++) x[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Get(b, 2, MPI_DOUBLE, 1, 0, 2, MPI_DOUBLE, win);
    MPI_Win_flush_all(win);
#pragma omp parallel num_threads(2)
    {
      int t = omp_get_thread_num();
      if (t == 1)
        for (int r = 0; r < 4; r++)
          for (int i = 0; i < 64; i++) s1 += y[i] + z[i];
#pragma omp barrier
      if (t == 0) MPI_Get(y, 4, MPI_DOUBLE, 1, 2, 4, MPI_DOUBLE, win);
      if (t == 0) MPI_Get(z, 4, MPI_DOUBLE, 1, 2, 4, MPI_DOUBLE, win);
#pragma omp barrier
      if (t == 1) s0 = y[6] + z[5];
#pragma omp barrier
      if (t == 0) MPI_Win_flush_all(win);
#pragma omp barrier
      if (t == 1) {
        y[3] = 1;
        z[1] = 2;
      }
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %g %g\n", rank, s0, s1);
  MPI_Win_free(&win);
  free(b);
  free(z);
  MPI_Finalize();
  return 0;
}
