/* Pipelined wavefront (the pattern of the Parallel Research Kernels' Synch_p2p): an M x N grid
 * split into column blocks, A[i][j] = A[i-1][j] + A[i][j-1] - A[i-1][j-1], swept row by row.
 *   usage: wavefront M N ITERS
 * Each rank's whole block (with one ghost column on the left) is the window. For every row a
 * rank waits in a tiny PSCW epoch (MPI_Win_post + MPI_Win_wait, its left neighbour's group) for
 * the left neighbour's last value of that row, computes the row, and hands its own last value
 * to the right in a tiny epoch of its own (start, one 8-byte MPI_Put, complete). After each
 * sweep the last rank sends A[M-1][N-1] to rank 0, which sets A[0][0] = -A[M-1][N-1].
 * Verification: exact, with A[0][j] = j and A[i][0] = i the sweep gives
 * A[i][j] = i + j - A[0][0], so after ITERS sweeps every A[i][j] (i, j >= 1) is
 * i + j + (ITERS-1) * (M+N-2). */
#include "kern.h"

int KERN_MAIN(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int m = kern_arg(argc, argv, 1, 32), n = kern_arg(argc, argv, 2, 32);
  int iters = kern_arg(argc, argv, 3, 2);
  if (n % p || n / p < 2 || m < 2) {
    if (rank == 0) fprintf(stderr, "wavefront: N (%d) must be a multiple of the ranks, >= 2 columns each\n", n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int w = n / p, ld = w + 1; /* local column c >= 1 is global column rank*w + c - 1 */
  double *A;
  MPI_Win win;
  MPI_Win_allocate((size_t)m * ld * sizeof(double), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &A, &win);
  memset(A, 0, (size_t)m * ld * sizeof(double));
  for (int c = 0; c <= w; c++) A[c] = rank * w + c - 1;  /* row 0: A[0][j] = j */
  if (rank == 0)
    for (int i = 0; i < m; i++) A[(size_t)i * ld + 1] = i; /* column 0: A[i][0] = i */
  MPI_Group world, left, right;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int l = rank - 1, r = rank + 1;
  MPI_Group_incl(world, rank > 0, &l, &left);
  MPI_Group_incl(world, rank < p - 1, &r, &right);
  int c0 = rank == 0 ? 2 : 1;

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int it = 0; it < iters; it++) {
    for (int i = 1; i < m; i++) {
      double *row = A + (size_t)i * ld, *prev = row - ld;
      if (rank > 0) {
        MPI_Win_post(left, 0, win);
        MPI_Win_wait(win);
      }
      for (int c = c0; c <= w; c++) row[c] = prev[c] + row[c - 1] - prev[c - 1];
      if (rank < p - 1) {
        MPI_Win_start(right, 0, win);
        MPI_Put(&row[w], 1, MPI_DOUBLE, rank + 1, (MPI_Aint)i * ld, 1, MPI_DOUBLE, win);
        MPI_Win_complete(win);
      }
    }
    if (it == iters - 1) break;
    if (rank == p - 1) {
      double corner = -A[(size_t)(m - 1) * ld + w];
      if (p == 1) A[1] = corner;
      else MPI_Send(&corner, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    if (rank == 0 && p > 1) MPI_Recv(&A[1], 1, MPI_DOUBLE, p - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double t = MPI_Wtime() - t0;

  int ok = 1;
  double a00 = -(double)(iters - 1) * (m + n - 2);
  for (int i = 1; i < m && ok; i++)
    for (int c = c0; c <= w; c++) {
      double want = i + (rank * w + c - 1) - a00;
      if (A[(size_t)i * ld + c] != want) {
        fprintf(stderr, "wavefront: rank %d A[%d][%d] = %.17g, expected %.17g\n", rank, i,
                rank * w + c - 1, A[(size_t)i * ld + c], want);
        ok = 0;
        break;
      }
    }
  int rc = kern_finish("wavefront", "pscw", (long)m, iters, t, ok);
  MPI_Group_free(&left);
  MPI_Group_free(&right);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  MPI_Finalize();
  return rc;
}
