/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 32 35
 * pair: 33 35
 */
/* Window shadows record a run of 512 bytes that all hold one state once (src/clocks/shadow.c,
 * "spans"): rank 1's memset of its whole window leaves every span summarized. Rank 0's puts
 * then meet them in the epoch where rank 1 copies them all out (memcpy: one range over whole
 * spans): one double in the middle of a span (a single granule of a summarized span), and 512
 * doubles over whole spans. Whichever comes first, the second meets the first in a summary
 * word; both races must be found there. */
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
  if (rank == 1) memset(a, 0, N * sizeof(double));
  MPI_Win_fence(0, win);
  if (rank == 0) {
    MPI_Put(v, 1, MPI_DOUBLE, 1, 1001, 1, MPI_DOUBLE, win);
    MPI_Put(v, 512, MPI_DOUBLE, 1, 2048, 512, MPI_DOUBLE, win);
  } else {
    memcpy(a_copy, a, N * sizeof(double));
    s = a_copy[1001] + a_copy[2048];
  }
  MPI_Win_fence(0, win);
  printf("%g\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
