/* Distributed matrix transpose B = A^T of an N x N matrix of doubles in row blocks.
 *   usage: transpose get|alltoall N ITERS
 *   get:      A is a window; between two fences each rank gets, from every rank s, the b x b
 *             block of s's rows in its own columns with one MPI_Get whose target datatype is a
 *             strided vector, then transposes the blocks locally into B
 *   alltoall: the same blocks packed and exchanged by MPI_Alltoall (the reference)
 * After each transpose every element of A is incremented (local stores into the window, ordered
 * before the next iteration's gets by its opening fence).
 * Verification: exact, A starts as A[i][j] = i*N + j, so B[i][j] = j*N + i + ITERS - 1. */
#include "kern.h"

static void unpack(double *restrict B, const double *restrict buf, int b, int n, int p)
{
  for (int s = 0; s < p; s++) /* buf block s: rows of rank s, my columns */
    for (int ii = 0; ii < b; ii++)
      for (int jj = 0; jj < b; jj++)
        B[(size_t)jj * n + (size_t)s * b + ii] = buf[(size_t)s * b * b + (size_t)ii * b + jj];
}

int KERN_MAIN(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char *vname = argc > 1 ? argv[1] : "get";
  int use_get = strcmp(vname, "alltoall") != 0;
  int n = kern_arg(argc, argv, 2, 64), iters = kern_arg(argc, argv, 3, 4);
  if (n % p) {
    if (rank == 0) fprintf(stderr, "transpose: N (%d) must be a multiple of the ranks\n", n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int b = n / p;
  size_t len = (size_t)b * n;
  double *A, *B = malloc(len * sizeof(double)), *buf = malloc(len * sizeof(double));
  double *pack = use_get ? NULL : malloc(len * sizeof(double));
  MPI_Win win;
  MPI_Win_allocate(len * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &A, &win);
  for (int i = 0; i < b; i++)
    for (int j = 0; j < n; j++) A[(size_t)i * n + j] = (double)((size_t)(rank * b + i) * n + j);
  MPI_Datatype block;
  MPI_Type_vector(b, b, n, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < iters; it++) {
    if (use_get) {
      MPI_Win_fence(0, win);
      for (int k = 0; k < p; k++) {
        int s = (rank + k) % p;
        MPI_Get(buf + (size_t)s * b * b, b * b, MPI_DOUBLE, s, (MPI_Aint)rank * b, 1, block, win);
      }
      MPI_Win_fence(0, win);
    } else {
      for (int s = 0; s < p; s++)
        for (int i = 0; i < b; i++)
          memcpy(pack + (size_t)s * b * b + (size_t)i * b, A + (size_t)i * n + (size_t)s * b,
                 b * sizeof(double));
      MPI_Alltoall(pack, b * b, MPI_DOUBLE, buf, b * b, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    unpack(B, buf, b, n, p);
    for (size_t e = 0; e < len; e++) A[e] += 1.0;
  }
  double t = MPI_Wtime() - t0;

  int ok = 1;
  for (int i = 0; i < b && ok; i++)
    for (int j = 0; j < n; j++) {
      double want = (double)((size_t)j * n + (size_t)rank * b + i) + iters - 1;
      if (B[(size_t)i * n + j] != want) {
        fprintf(stderr, "transpose: rank %d B[%d][%d] = %.17g, expected %.17g\n", rank, i, j,
                B[(size_t)i * n + j], want);
        ok = 0;
        break;
      }
    }
  int rc = kern_finish("transpose", vname, n, iters, t, ok);
  MPI_Type_free(&block);
  MPI_Win_free(&win);
  free(B);
  free(buf);
  free(pack);
  MPI_Finalize();
  return rc;
}
