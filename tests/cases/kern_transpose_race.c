/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 35 43
 */
/* Racy twin of kern_transpose_get_norace.c: the MPI_Get transpose of bench/kernels/transpose.c,
 * compact, with one fence per iteration instead of two. The fence after the gets still
 * completes them, but no fence separates an iteration's update of A (local stores into the
 * window) from the next iteration's gets of the other rank, which read A. -DKEEP_SYNC puts the
 * opening fence back: hrace must then report nothing (the case would fail). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int n = 16, b = n / p, iters = 3;
  double *A, *B = malloc(sizeof(double) * b * n), *buf = malloc(sizeof(double) * b * n);
  MPI_Win win;
  MPI_Win_allocate(sizeof(double) * b * n, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &A, &win);
  for (int i = 0; i < b * n; i++) A[i] = rank * b * n + i;
  MPI_Datatype block;
  MPI_Type_vector(b, b, n, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);
  MPI_Win_fence(0, win);
  for (int it = 0; it < iters; it++) {
#ifdef KEEP_SYNC
    MPI_Win_fence(0, win);
#endif
    for (int k = 0; k < p; k++) {
      int s = (rank + k) % p;
      MPI_Get(buf + s * b * b, b * b, MPI_DOUBLE, s, (MPI_Aint)rank * b, 1, block, win);
    }
    MPI_Win_fence(0, win);
    for (int s = 0; s < p; s++)
      for (int ii = 0; ii < b; ii++)
        for (int jj = 0; jj < b; jj++)
          B[jj * n + s * b + ii] = buf[s * b * b + ii * b + jj];
    for (int e = 0; e < b * n; e++)
      A[e] += 1.0;
  }
  MPI_Win_fence(0, win);
  MPI_Type_free(&block);
  MPI_Win_free(&win);
  free(B);
  free(buf);
  MPI_Finalize();
  return 0;
}
