/* hrace-test
 * ranks: 2
 * expect: no-race
 * env: HRACE_OPTIONS=mode=window
 * cflags: -O2
 */
/* The twin of win_span2_seen_race: rank 0's puts into elements 2, N - 1 and 100 come in the
 * epoch after rank 1's two range reads: no race. From the race twin: a range read that a range
 * of the same segment partly covers (src/clocks/shadow.c, "the ranges this thread's segment
 * already recorded"): only the ends the recorded range leaves out go through the cells. */
#include <mpi.h>
#include <stdio.h>

#define N 1024

static double s1, s2;

__attribute__((noinline)) static void fill(double *restrict a, int n) {
  for (int j = 0; j < n; j++) a[j] = j;
}

__attribute__((noinline)) static void sums(const double *restrict a, int n) {
  double x = 0, y = 0;
  for (int j = 3; j < n - 1; j++) x += a[j];
  for (int j = 2; j < n; j++) y += a[j];
  s1 += x;
  s2 += y;
}

int main(int argc, char **argv) {
  int rank;
  double *a, v[3] = {1, 2, 3};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  MPI_Win_fence(0, win);
  if (rank == 1) fill(a, N);
  MPI_Win_fence(0, win);
  if (rank == 1) sums(a, N);
  MPI_Win_fence(0, win);
  if (rank == 0) {
    MPI_Put(&v[0], 1, MPI_DOUBLE, 1, 2, 1, MPI_DOUBLE, win);
    MPI_Put(&v[1], 1, MPI_DOUBLE, 1, N - 1, 1, MPI_DOUBLE, win);
    MPI_Put(&v[2], 1, MPI_DOUBLE, 1, 100, 1, MPI_DOUBLE, win);
  }
  MPI_Win_fence(0, win);
  printf("%g %g\n", s1, s2);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
