/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 29 31
 */
/* An RMA operation's origin buffer in the issuing process's own window, written by another
 * thread with no synchronisation between the write and the issue: thread 1 stores into
 * a[5] while thread 0 (the master: MPI_THREAD_FUNNELED) puts a[0..8) to the other rank.
 * Window memory is left out of the history of plain memory (src/access/check.h): the window's
 * shadow, which records the put's read of its origin bytes at the issue, must find the race in
 * either order. The twin, hyb_win_origin_norace, has a barrier between the two. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided;
  double *a;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(1024 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  for (int i = 0; i < 1024; i++) a[i] = i;
  MPI_Win_fence(0, win);
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) a[5] = -1;
    if (omp_get_thread_num() == 0)
      MPI_Put(a, 8, MPI_DOUBLE, 1 - rank, 100, 8, MPI_DOUBLE, win);
  }
  MPI_Win_fence(0, win);
  printf("%g\n", a[105]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
