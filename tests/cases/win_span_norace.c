/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of win_span_race, fenced: three rounds of rank 1 writing and reading its whole
 * window (memset and a loop, memcpy and a loop: every span summarized, then moved on one
 * summary word at a time), rank 0 putting one double into the middle of a span and 512 over
 * whole spans, a fence between each. Summarized spans must say what each granule would: no
 * race. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 4096

int main(int argc, char **argv) {
  int rank;
  static double a_copy[N];
  double *a, v[512], s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  for (int i = 0; i < 512; i++) v[i] = i;
  MPI_Win_fence(0, win);
  for (int round = 0; round < 3; round++) {
    if (rank == 1) {
      memset(a, 0, N * sizeof(double));
      for (int i = 0; i < N; i++) a[i] = i + round;
    }
    MPI_Win_fence(0, win);
    if (rank == 0) {
      MPI_Put(v, 1, MPI_DOUBLE, 1, 1001, 1, MPI_DOUBLE, win);
      MPI_Put(v, 512, MPI_DOUBLE, 1, 2048, 512, MPI_DOUBLE, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 1) {
      memcpy(a_copy, a, N * sizeof(double));
      for (int i = 0; i < N; i++) s += a[i] + a_copy[i];
    }
    MPI_Win_fence(0, win);
  }
  printf("%g\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
