/* hrace-test
 * ranks: 2
 * expect: no-race
 * env: HRACE_OPTIONS=mode=window
 */
/* The twin of win_span_edge_race: rank 0's puts into the row's first element (an exception
 * granule of a summarized span) and into the middle of a span come in their own epoch, after
 * rank 1's last update and before its reads: no race. From the race twin:
 * Span summaries with exceptions (src/clocks/shadow.c, "spans"): a stencil-like row update
 * writes a row's first and last elements one by one and the rest in one range, so the row's
 * first and last spans are summarized with those granules as exceptions. In the epoch after
 * one such update, rank 1 updates its row again while rank 0 puts into the row's first element
 * (an exception granule) and into four elements in the middle of a span (a put splitting a
 * summary). */
#include <mpi.h>
#include <stdio.h>

#define N 1024

static void row(double *restrict out, const double *restrict c, int n) {
  out[0] = 0.5 * c[0] + c[n - 1];
  for (int j = 1; j < n - 1; j++) out[j] = 0.5 * c[j] + c[j - 1];
  out[n - 1] = 0.5 * c[n - 1] + c[n - 2];
}

int main(int argc, char **argv) {
  int rank;
  static double src[N];
  double *a, v[4] = {1, 2, 3, 4};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  for (int i = 0; i < N; i++) src[i] = i;
  MPI_Win_fence(0, win);
  if (rank == 1) row(a, src, N);
  MPI_Win_fence(0, win);
  if (rank == 1) row(a, src, N);
  MPI_Win_fence(0, win);
  if (rank == 1) row(a, src, N);
  MPI_Win_fence(0, win);
  if (rank == 0) {
    MPI_Put(v, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win);
    MPI_Put(v, 4, MPI_DOUBLE, 1, 600, 4, MPI_DOUBLE, win);
  }
  MPI_Win_fence(0, win);
  if (rank == 1) row(src, a, N);
  MPI_Win_fence(0, win);
  printf("%g\n", rank == 1 ? a[0] + a[600] : 0.0);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
