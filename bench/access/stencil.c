/* 2-D 5-point stencil over window memory (bench/README.md, "Loop hoisting"): the compute
 * loop of a Jacobi sweep whose grids are exposed with MPI_Win_create, a fence around every
 * sweep (as a halo exchange by MPI_Put would need). One rank is enough: the subject is the
 * cost of the instrumented loads and stores, not communication.
 *
 *   stencil [N [ITERS [win|plain]]]   N x N doubles per grid (default 1024), ITERS sweeps
 *                                     (default 100); `plain`: the grids are not in a window
 *                                     (every access misses the filter), only a small halo is
 *
 * Prints "compute S" (wall-clock seconds in the sweeps, fences excluded), "cpu S" (the same
 * in this thread's CPU time: steadier on a machine shared with other jobs) and "total S". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clk(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
static double now(void) { return clk(CLOCK_MONOTONIC); }

__attribute__((noinline)) static void sweep(double *restrict out, const double *restrict in, int n) {
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      out[(size_t)i * n + j] = 0.25 * (in[(size_t)(i - 1) * n + j] + in[(size_t)(i + 1) * n + j] +
                                       in[(size_t)i * n + j - 1] + in[(size_t)i * n + j + 1]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024, iters = argc > 2 ? atoi(argv[2]) : 100;
  int inwin = !(argc > 3 && !strcmp(argv[3], "plain"));
  MPI_Init(&argc, &argv);
  size_t bytes = (size_t)n * n * sizeof(double);
  double *a = malloc(bytes), *b = malloc(bytes), halo[64];
  for (size_t k = 0; k < (size_t)n * n; k++) a[k] = b[k] = (double)(k % 17);
  MPI_Win wa, wb;
  MPI_Win_create(inwin ? (void *)a : halo, inwin ? bytes : sizeof halo, sizeof(double),
                 MPI_INFO_NULL, MPI_COMM_WORLD, &wa);
  MPI_Win_create(inwin ? (void *)b : halo, inwin ? bytes : sizeof halo, sizeof(double),
                 MPI_INFO_NULL, MPI_COMM_WORLD, &wb);
  double t0 = now(), tc = 0, tcpu = 0;
  MPI_Win_fence(0, wa);
  MPI_Win_fence(0, wb);
  for (int it = 0; it < iters; it++) {
    double s = now(), sc = clk(CLOCK_THREAD_CPUTIME_ID);
    if (it & 1) sweep(a, b, n);
    else sweep(b, a, n);
    tc += now() - s;
    tcpu += clk(CLOCK_THREAD_CPUTIME_ID) - sc;
    MPI_Win_fence(0, wa);
    MPI_Win_fence(0, wb);
  }
  double tt = now() - t0;
  printf("check %.6f\n", a[(size_t)(n / 2) * n + n / 2] + b[(size_t)(n / 3) * n + n / 3]);
  printf("compute %.4f\ncpu %.4f\ntotal %.4f\n", tc, tcpu, tt);
  MPI_Win_free(&wa);
  MPI_Win_free(&wb);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
