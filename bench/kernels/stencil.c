/* 2-D 5-point stencil, periodic N x N grid of doubles split into row blocks, halo rows
 * exchanged by MPI_Put into the neighbours' windows.
 *   usage: stencil fence|pscw|lockall N ITERS
 * Each rank holds rows+2 rows (one halo row above and below) in each of two arrays, each its
 * own window; an iteration puts the current array's first and last interior rows into the
 * neighbours' halo rows, then computes the next array from the current one and swaps them.
 *   fence:   MPI_Win_fence before and after the puts
 *   pscw:    post / start / puts / complete / wait with the two neighbours
 *   lockall: one MPI_Win_lock_all per window for the whole run; puts, MPI_Win_flush, then a
 *            zero-byte message to each neighbour says "your halo is in"
 * Verification: the update u' = u/2 + (n+s+e+w)/8 conserves the global sum (periodic grid), and
 * does so only when every halo row read is the neighbour's current row; it also never leaves the
 * initial [min, max] range. */
#include "kern.h"
#include <math.h>

enum { FENCE, PSCW, LOCKALL };

static void row_update(double *restrict out, const double *restrict c, const double *restrict up,
                       const double *restrict dn, int n)
{
  out[0] = 0.5 * c[0] + 0.125 * (up[0] + dn[0] + c[n - 1] + c[1]);
  for (int j = 1; j < n - 1; j++)
    out[j] = 0.5 * c[j] + 0.125 * (up[j] + dn[j] + c[j - 1] + c[j + 1]);
  out[n - 1] = 0.5 * c[n - 1] + 0.125 * (up[n - 1] + dn[n - 1] + c[n - 2] + c[0]);
}

int KERN_MAIN(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char *vname = argc > 1 ? argv[1] : "fence";
  int variant = !strcmp(vname, "pscw") ? PSCW : !strcmp(vname, "lockall") ? LOCKALL : FENCE;
  int n = kern_arg(argc, argv, 2, 64), iters = kern_arg(argc, argv, 3, 10);
  if (n % p || n / p < 1 || n < 3) {
    if (rank == 0) fprintf(stderr, "stencil: N (%d) must be >= 3 and a multiple of the ranks\n", n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rows = n / p, up = (rank + p - 1) % p, dn = (rank + 1) % p;
  size_t len = (size_t)(rows + 2) * n;
  double *u[2];
  MPI_Win win[2];
  for (int k = 0; k < 2; k++)
    MPI_Win_allocate(len * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &u[k],
                     &win[k]);

  double sum0, min0, max0;
  kern_grid_init(u[0], rank, rows, n, &sum0, &min0, &max0);

  MPI_Group world, nbrs;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int nb[2] = {up, dn};
  MPI_Group_incl(world, up == dn ? 1 : 2, nb, &nbrs);
  if (variant == LOCKALL)
    for (int k = 0; k < 2; k++) MPI_Win_lock_all(0, win[k]);

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int cur = 0;
  for (int it = 0; it < iters; it++) {
    double *a = u[cur], *b = u[1 - cur];
    MPI_Win w = win[cur];
    if (variant == FENCE) MPI_Win_fence(0, w);
    if (variant == PSCW) {
      MPI_Win_post(nbrs, 0, w);
      MPI_Win_start(nbrs, 0, w);
    }
    /* my first row -> up's bottom halo, my last row -> down's top halo */
    MPI_Put(a + n, n, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n, n, MPI_DOUBLE, w);
    MPI_Put(a + (size_t)rows * n, n, MPI_DOUBLE, dn, 0, n, MPI_DOUBLE, w);
    if (variant == FENCE) MPI_Win_fence(0, w);
    if (variant == PSCW) {
      MPI_Win_complete(w);
      MPI_Win_wait(w);
    }
    if (variant == LOCKALL) {
      MPI_Win_flush(up, w);
      MPI_Win_flush(dn, w);
      MPI_Request rq[4];
      MPI_Irecv(NULL, 0, MPI_BYTE, up, it, MPI_COMM_WORLD, &rq[0]);
      MPI_Irecv(NULL, 0, MPI_BYTE, dn, it, MPI_COMM_WORLD, &rq[1]);
      MPI_Isend(NULL, 0, MPI_BYTE, up, it, MPI_COMM_WORLD, &rq[2]);
      MPI_Isend(NULL, 0, MPI_BYTE, dn, it, MPI_COMM_WORLD, &rq[3]);
      MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    }
    for (int i = 1; i <= rows; i++)
      row_update(b + (size_t)i * n, a + (size_t)i * n, a + (size_t)(i - 1) * n,
                 a + (size_t)(i + 1) * n, n);
    cur = 1 - cur;
  }
  double t = MPI_Wtime() - t0;
  if (variant == LOCKALL)
    for (int k = 0; k < 2; k++) MPI_Win_unlock_all(win[k]);

  double lsum = 0;
  int ok = 1;
  for (int i = 1; i <= rows; i++)
    for (int j = 0; j < n; j++) {
      double v = u[cur][(size_t)i * n + j];
      lsum += v;
      if (!(v >= min0 - 1e-12 && v <= max0 + 1e-12)) ok = 0;
    }
  double sum;
  MPI_Allreduce(&lsum, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (fabs(sum - sum0) > 1e-9 * (double)n * n) ok = 0;
  if (!ok && rank == 0)
    fprintf(stderr, "stencil: sum %.12g, expected %.12g (or a value left [%g, %g])\n", sum, sum0,
            min0, max0);
  int rc = kern_finish("stencil", vname, n, iters, t, ok);
  MPI_Group_free(&nbrs);
  MPI_Group_free(&world);
  for (int k = 0; k < 2; k++) MPI_Win_free(&win[k]);
  MPI_Finalize();
  return rc;
}
