/* Full mode's cost (bench/README.md, "Full mode: thread races on all memory"): OpenMP kernels
 * whose loads and stores all go to plain heap memory shared by the threads.
 *   loop N R      R sweeps of a[i] = 0.5 * a[i] + b[i] over N doubles, `omp for` (each thread
 *                 its own chunk, the same chunk every sweep), a barrier per sweep
 *   stencil N R   R Jacobi sweeps of a 5-point stencil over an N x N grid, `omp for` over rows
 *                 (rows at chunk edges are read by two threads), two grids swapped per sweep
 * Prints the wall time of the kernel (omp_get_wtime) and a checksum. No MPI. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double loop(long n, int reps) {
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  if (!a || !b) exit(1);
  for (long i = 0; i < n; i++) a[i] = 1.0, b[i] = 0.25 * (i & 7);
  #pragma omp parallel
  for (int r = 0; r < reps; r++) {
    #pragma omp for schedule(static)
    for (long i = 0; i < n; i++) a[i] = 0.5 * a[i] + b[i];
  }
  double s = 0;
  for (long i = 0; i < n; i++) s += a[i];
  free(a);
  free(b);
  return s;
}

static double stencil(long n, int reps) {
  double *u = calloc(n * n, sizeof *u), *v = calloc(n * n, sizeof *v);
  if (!u || !v) exit(1);
  for (long j = 0; j < n; j++) u[j] = v[j] = 1.0;   /* a hot top edge */
  #pragma omp parallel
  for (int r = 0; r < reps; r++) {
    double *src = r & 1 ? v : u, *dst = r & 1 ? u : v;
    #pragma omp for schedule(static)
    for (long i = 1; i < n - 1; i++)
      for (long j = 1; j < n - 1; j++)
        dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] +
                                 src[i * n + j - 1] + src[i * n + j + 1]);
  }
  double s = 0;
  for (long i = 0; i < n * n; i++) s += u[i];
  free(u);
  free(v);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s loop|stencil N REPS\n", argv[0]);
    return 2;
  }
  long n = atol(argv[2]);
  int reps = atoi(argv[3]);
  double t = omp_get_wtime();
  double s = strcmp(argv[1], "loop") == 0 ? loop(n, reps) : stencil(n, reps);
  t = omp_get_wtime() - t;
  printf("%s %ld %d: %.3f s (checksum %g)\n", argv[1], n, reps, t, s);
  return 0;
}
