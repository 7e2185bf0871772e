/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_OPTIONS=mode=window
 * pair: 25 45
 * pair: 26 46
 */
/* Span summaries with exceptions (src/clocks/shadow.c, "spans") under two threads. Before
 * the parallel region the main thread updates a row of its window as a stencil does (the
 * first and last elements one by one, the rest in one range): the row's spans are summarized,
 * its edge granules exceptions. Then, in one parallel region without a barrier, thread 0
 * updates the row again while thread 1 writes the row's first element (an exception granule
 * written by a second thread) and reads an element in the middle of a span (its first access
 * inside a summarized span in this region). Both race with thread 0's range. The twin,
 * hyb_span_exc_norace, has a barrier between them. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define N 1024

static void row(double *restrict out, const double *restrict c, int n) {
  out[0] = 0.5 * c[0] + c[n - 1];
  for (int j = 1; j < n - 1; j++) out[j] = 0.5 * c[j] + c[j - 1];
  out[n - 1] = 0.5 * c[n - 1] + c[n - 2];
}

int main(int argc, char **argv) {
  int rank, provided;
  static double src[N];
  double *a, s = 0;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  for (int i = 0; i < N; i++) src[i] = i;
  MPI_Win_fence(0, win);
  row(a, src, N);
#pragma omp parallel num_threads(2) reduction(+ : s)
  {
    if (omp_get_thread_num() == 0) row(a, src, N);
    if (omp_get_thread_num() == 1) {
      a[0] = 1;
      s += a[700];
    }
  }
  MPI_Win_fence(0, win);
  printf("%g\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
