/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 35 42
 * pair: 36 42
 */
/* Racy twin of kern_stencil_fence_norace.c: the stencil of bench/kernels/stencil.c, compact, with
 * the fence that closes each halo exchange left out. The halo rows the neighbour puts are then
 * read by the compute loop with no fence between the put and the load (the epoch is closed
 * only two iterations later, when the window comes round again). -DKEEP_SYNC puts the fence
 * back: hrace must then report nothing (the case would fail). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
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
  int cur = 0;
  for (int it = 0; it < iters; it++) {
    double *a = u[cur], *b = u[1 - cur];
    MPI_Win w = win[cur];
    MPI_Win_fence(0, w);
    MPI_Put(a + n, n, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n, n, MPI_DOUBLE, w);
    MPI_Put(a + (size_t)rows * n, n, MPI_DOUBLE, dn, 0, n, MPI_DOUBLE, w);
#ifdef KEEP_SYNC
    MPI_Win_fence(0, w);
#endif
    for (int i = 1; i <= rows; i++)
      for (int j = 0; j < n; j++)
        b[i * n + j] = 0.5 * a[i * n + j] + 0.125 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + (j + n - 1) % n] + a[i * n + (j + 1) % n]);
    cur = 1 - cur;
  }
  for (int k = 0; k < 2; k++) {
    MPI_Win_fence(0, win[k]);
    MPI_Win_free(&win[k]);
  }
  MPI_Finalize();
  return 0;
}
