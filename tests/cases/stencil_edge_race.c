/* hrace-test
 * ranks: 2
 * expect: race
 * env: HRACE_OPTIONS=mode=window
 * cflags: -O2
 * pair: 25 48
 * pair: 27 49
 */
/* A stencil's edge elements read one window and write another in the same statement (src/
 * access/tsan.c, tracked(): an access in the window found before the last one goes straight to
 * that window's shadow, without the search). Rank 1 updates rows of window b from rows of
 * window a, each row's first and last elements by single accesses and the rest by hoisted
 * ranges, over several epochs (the rows' spans summarized, the edges their exceptions). In the
 * last epoch rank 0 puts into b's first element of row 5 (written by line 25 only) and into
 * a's first element of row 6 (read by line 27 only): both race, whichever comes first. A wrong
 * window or offset on the shortcut would miss them or name other lines. The twin,
 * stencil_edge_norace, puts in an epoch of its own. */
#include <mpi.h>
#include <stdio.h>

#define N 256
#define ROWS 8

static void row(double *restrict out, const double *restrict c, int n) {
  out[0] = c[n - 1];
  for (int j = 1; j < n - 1; j++) out[j] = 0.5 * c[j];
  out[n - 1] = c[0];
}

int main(int argc, char **argv) {
  int rank;
  double *a, *b, v[2] = {1, 2};
  MPI_Win wa, wb;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(ROWS * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
  MPI_Win_allocate(ROWS * N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &wb);
  for (int i = 0; i < ROWS * N; i++) a[i] = i;
  for (int e = 0; e < 3; e++) {
    MPI_Win_fence(0, wa);
    MPI_Win_fence(0, wb);
    if (rank == 1)
      for (int i = 0; i < ROWS; i++) row(b + i * N, a + i * N, N);
  }
  MPI_Win_fence(0, wa);
  MPI_Win_fence(0, wb);
  if (rank == 0) {
    MPI_Put(&v[0], 1, MPI_DOUBLE, 1, 5 * N, 1, MPI_DOUBLE, wb);
    MPI_Put(&v[1], 1, MPI_DOUBLE, 1, 6 * N, 1, MPI_DOUBLE, wa);
  } else {
    for (int i = 0; i < ROWS; i++) row(b + i * N, a + i * N, N);
  }
  MPI_Win_fence(0, wa);
  MPI_Win_fence(0, wb);
  printf("%g\n", rank == 1 ? b[5 * N] + a[6 * N] : 0.0);
  MPI_Win_free(&wb);
  MPI_Win_free(&wa);
  MPI_Finalize();
  return 0;
}
