/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 42 52
 */
/* Racy twin of kern_hybrid_master_norace.c: the hybrid stencil of bench/kernels/hybrid.c,
 * compact, without the barrier after the master thread's halo exchange. The master's closing
 * fence completes the neighbour's puts into this rank's halo rows, but the other thread may
 * start its rows of the `omp for` (and read the bottom halo row, which only it reads with a
 * static schedule) before that fence: nothing orders the fence before its loads. The top halo
 * row is read by the master itself, after its fence: no race there. -DKEEP_SYNC puts the
 * barrier back: hrace must then report nothing (the case would fail). */
#include <mpi.h>
#include <omp.h>

int main(int argc, char **argv)
{
  int got;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &got);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int n = 32, rows = n / p, iters = 4;
  int up = (rank + p - 1) % p, dn = (rank + 1) % p;
  double *u[2];
  MPI_Win win[2];
  for (int k = 0; k < 2; k++) {
    MPI_Win_allocate((size_t)(rows + 2) * n * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &u[k], &win[k]);
    for (int e = 0; e < (rows + 2) * n; e++) u[k][e] = rank + e % 7;
  }
#pragma omp parallel
  {
    int cur = 0;
    for (int it = 0; it < iters; it++) {
      double *a = u[cur], *b = u[1 - cur];
#pragma omp master
      {
        MPI_Win_fence(0, win[cur]);
        MPI_Put(a + n, n, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n, n, MPI_DOUBLE, win[cur]);
        MPI_Put(a + (size_t)rows * n, n, MPI_DOUBLE, dn, 0, n, MPI_DOUBLE, win[cur]);
        MPI_Win_fence(0, win[cur]);
      }
#ifdef KEEP_SYNC
#pragma omp barrier
#endif
#pragma omp for schedule(static)
      for (int i = 1; i <= rows; i++)
        for (int j = 0; j < n; j++)
          b[i * n + j] = 0.5 * a[i * n + j] + 0.125 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + (j + n - 1) % n] + a[i * n + (j + 1) % n]);
      cur = 1 - cur;
    }
  }
  for (int k = 0; k < 2; k++) MPI_Win_free(&win[k]);
  MPI_Finalize();
  return 0;
}
