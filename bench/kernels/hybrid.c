/* Hybrid MPI + OpenMP 5-point stencil: the grid, update and verification of stencil.c, with
 * OpenMP-parallel compute and fence-synchronised MPI_Put halo exchange.
 *   usage: hybrid master|multiple|tasks N ITERS        (threads: OMP_NUM_THREADS)
 *   master:   the master thread exchanges the halos (MPI_THREAD_FUNNELED), a barrier, then an
 *             `omp for` over the rows
 *   multiple: every thread puts its share of the halo rows' columns between two fences that one
 *             thread calls (MPI_THREAD_MULTIPLE), then an `omp for` over the rows
 *   tasks:    one thread exchanges the halos and creates a task per block of rows, taskwait
 * Verification: as stencil.c (conservation of the global sum, values within the initial range). */
#include "kern.h"
#include <math.h>
#include <omp.h>

enum { MASTER, MULTIPLE, TASKS };

static void row_update(double *restrict out, const double *restrict c, const double *restrict up,
                       const double *restrict dn, int n)
{
  out[0] = 0.5 * c[0] + 0.125 * (up[0] + dn[0] + c[n - 1] + c[1]);
  for (int j = 1; j < n - 1; j++)
    out[j] = 0.5 * c[j] + 0.125 * (up[j] + dn[j] + c[j - 1] + c[j + 1]);
  out[n - 1] = 0.5 * c[n - 1] + 0.125 * (up[n - 1] + dn[n - 1] + c[n - 2] + c[0]);
}

int KERN_MAIN(int argc, char **argv)
{
  const char *vname = argc > 1 ? argv[1] : "master";
  int variant = !strcmp(vname, "multiple") ? MULTIPLE : !strcmp(vname, "tasks") ? TASKS : MASTER;
  int want = variant == MULTIPLE ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, got;
  MPI_Init_thread(&argc, &argv, want, &got);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int n = kern_arg(argc, argv, 2, 64), iters = kern_arg(argc, argv, 3, 10);
  if (got < want || n % p || n < 3) {
    if (rank == 0) fprintf(stderr, "hybrid: thread level %d < %d, or N (%d) not a multiple of the ranks\n", got, want, n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rows = n / p, up = (rank + p - 1) % p, dn = (rank + 1) % p;
  size_t len = (size_t)(rows + 2) * n;
  double *u[2];
  MPI_Win win[2];
  for (int k = 0; k < 2; k++)
    MPI_Win_allocate(len * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &u[k],
                     &win[k]);
  double sum0, min0, max0;
  kern_grid_init(u[0], rank, rows, n, &sum0, &min0, &max0);
  int block = rows / (4 * omp_get_max_threads());
  if (block < 1) block = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
#pragma omp parallel
  {
    int cur = 0, nt = omp_get_num_threads(), me = omp_get_thread_num();
    int c0 = (int)((long)n * me / nt), c1 = (int)((long)n * (me + 1) / nt);
    for (int it = 0; it < iters; it++) {
      double *a = u[cur], *b = u[1 - cur];
      MPI_Win w = win[cur];
      if (variant == MASTER) {
#pragma omp master
        {
          MPI_Win_fence(0, w);
          MPI_Put(a + n, n, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n, n, MPI_DOUBLE, w);
          MPI_Put(a + (size_t)rows * n, n, MPI_DOUBLE, dn, 0, n, MPI_DOUBLE, w);
          MPI_Win_fence(0, w);
        }
#pragma omp barrier
      } else if (variant == MULTIPLE) {
#pragma omp single
        MPI_Win_fence(0, w);
        if (c1 > c0) {
          MPI_Put(a + n + c0, c1 - c0, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n + c0, c1 - c0,
                  MPI_DOUBLE, w);
          MPI_Put(a + (size_t)rows * n + c0, c1 - c0, MPI_DOUBLE, dn, c0, c1 - c0, MPI_DOUBLE, w);
        }
#pragma omp barrier
#pragma omp single
        MPI_Win_fence(0, w);
      }
      if (variant == TASKS) {
#pragma omp single
        {
          MPI_Win_fence(0, w);
          MPI_Put(a + n, n, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n, n, MPI_DOUBLE, w);
          MPI_Put(a + (size_t)rows * n, n, MPI_DOUBLE, dn, 0, n, MPI_DOUBLE, w);
          MPI_Win_fence(0, w);
          for (int i0 = 1; i0 <= rows; i0 += block) {
#pragma omp task firstprivate(i0)
            for (int i = i0; i < i0 + block && i <= rows; i++)
              row_update(b + (size_t)i * n, a + (size_t)i * n, a + (size_t)(i - 1) * n,
                         a + (size_t)(i + 1) * n, n);
          }
#pragma omp taskwait
        }
      } else {
#pragma omp for schedule(static)
        for (int i = 1; i <= rows; i++)
          row_update(b + (size_t)i * n, a + (size_t)i * n, a + (size_t)(i - 1) * n,
                     a + (size_t)(i + 1) * n, n);
      }
      cur = 1 - cur;
    }
  }
  double t = MPI_Wtime() - t0;
  int cur = iters % 2;
  double lsum = 0;
  int ok = 1;
  for (int i = 1; i <= rows; i++)
    for (int j = 0; j < n; j++) {
      double v = u[cur][(size_t)i * n + j];
      lsum += v;
      if (!(v >= min0 - 1e-12 && v <= max0 + 1e-12)) ok = 0;
    }
  double sum;
  MPI_Allreduce(&lsum, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (fabs(sum - sum0) > 1e-9 * (double)n * n) ok = 0;
  if (!ok && rank == 0)
    fprintf(stderr, "hybrid: sum %.12g, expected %.12g (or a value left [%g, %g])\n", sum, sum0,
            min0, max0);
  int rc = kern_finish("hybrid", vname, n, iters, t, ok);
  for (int k = 0; k < 2; k++) MPI_Win_free(&win[k]);
  MPI_Finalize();
  return rc;
}
