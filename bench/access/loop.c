/* Microbenchmark of the access callbacks (bench/README.md, "Loads and stores"): ns per access
 * of the same loops built four ways by run.sh: uninstrumented, instrumented with empty
 * callbacks, with hrace, and with ThreadSanitizer's own runtime.
 *
 *   miss-read / miss-write   loads / stores of memory hrace does not track (filter miss)
 *   gap-read                 loads between two windows (inside the filter's bounds: a search)
 *   win-read / win-write     loads / stores of window memory (the shadow check)
 *   memcpy-out / memcpy-in   memcpy of 4 KiB outside a window / into one (ns per call)
 *   hist-read / hist-write   loads / stores of untracked memory while a second thread has run
 *                            instrumented code (hrace records them in the history)
 *
 * Each row is the median of 7 timings of REPS passes over a 16 KiB array (L1/L2 resident),
 * so the figures are the callbacks' cost, not memory bandwidth. With -DUSE_MPI (the hrace
 * build) the "window" arrays are MPI windows; elsewhere they are plain memory. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

#define N 2048                       /* doubles per array */
#ifndef REPS
#define REPS 2000                    /* passes per timing: 4M accesses */
#endif
#ifndef TIMINGS
#define TIMINGS 7
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* One copy of the read and write loops per row, so that a profile (bench/access/cg.sh:
 * callgrind's instructions per access) tells the rows apart by function. */
#define LOOPS(row)                                                                               \
  __attribute__((noinline)) static double rd_##row(const double *a) {                           \
    double s = 0;                                                                                \
    for (long r = 0; r < REPS; r++)                                                              \
      for (int i = 0; i < N; i++) s += a[i];                                                     \
    return s;                                                                                    \
  }                                                                                              \
  __attribute__((noinline)) static void wr_##row(double *a) {                                    \
    for (long r = 0; r < REPS; r++)                                                              \
      for (int i = 0; i < N; i++) a[i] = (double)i;                                              \
  }
LOOPS(miss) LOOPS(gap) LOOPS(win) LOOPS(hist)

__attribute__((noinline)) static void cp(char *d, const char *s) {
  for (long r = 0; r < REPS; r++) memcpy(d, s, 4096);
}

static int cmp(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static volatile double sink;

/* Median ns per unit of `what` (0 read, 1 write, 2 memcpy) on a, over `units` units, with the
 * row's loops rd / wr. */
static double measure_(int what, double *a, const char *src, double units,
                       double (*rd)(const double *), void (*wr)(double *)) {
  double t[TIMINGS];
  for (int k = 0; k < TIMINGS; k++) {
    double t0 = now();
    if (what == 0) sink = rd(a);
    else if (what == 1) wr(a);
    else cp((char *)a, src);
    t[k] = now() - t0;
  }
  qsort(t, TIMINGS, sizeof t[0], cmp);
  return t[TIMINGS / 2] * 1e9 / units;
}
#define measure(what, a, src, units, row) measure_(what, a, src, units, rd_##row, wr_##row)

__attribute__((noinline)) static void *touch(void *arg) {
  *(volatile double *)arg = 1;       /* instrumented code on a second thread */
  return NULL;
}

int main(int argc, char **argv) {
  const double acc = (double)REPS * N;
  double *outside = aligned_alloc(64, N * sizeof(double));
  double *win = aligned_alloc(64, N * sizeof(double));
  /* Two more windows with a gap between them, far from the first. */
  char *pair = aligned_alloc(4096, 1 << 20);
  double *gap = (double *)(pair + 4096);
  char *src = aligned_alloc(64, 4096);
  memset(outside, 0, N * sizeof(double));
  memset(win, 0, N * sizeof(double));
  memset(pair, 0, 1 << 20);
  memset(src, 1, 4096);
#ifdef USE_MPI
  MPI_Init(&argc, &argv);
  MPI_Win w1, w2, w3;
  MPI_Win_create(win, N * sizeof(double), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w1);
  MPI_Win_create(pair, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
  MPI_Win_create(pair + 4096 + N * sizeof(double), 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w3);
#endif
  printf("miss-read %.3f\n", measure(0, outside, src, acc, miss));
  printf("miss-write %.3f\n", measure(1, outside, src, acc, miss));
  printf("gap-read %.3f\n", measure(0, gap, src, acc, gap));
  printf("win-read %.3f\n", measure(0, win, src, acc, win));
  printf("win-write %.3f\n", measure(1, win, src, acc, win));
  printf("memcpy-out %.3f\n", measure(2, outside, src, REPS, miss));
  printf("memcpy-in %.3f\n", measure(2, win, src, REPS, win));
  pthread_t th;
  pthread_create(&th, NULL, touch, &outside[N - 1]);
  pthread_join(th, NULL);
  printf("hist-read %.3f\n", measure(0, outside, src, acc, hist));
  printf("hist-write %.3f\n", measure(1, outside, src, acc, hist));
#ifdef USE_MPI
  MPI_Win_free(&w1);
  MPI_Win_free(&w2);
  MPI_Win_free(&w3);
  MPI_Finalize();
#endif
  return 0;
}
