/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 36 50
 * pair: 37 50
 */
/* Racy twin of kern_stencil_lockall_norace.c: the lock_all + flush stencil of
 * bench/kernels/stencil.c, compact, without the zero-byte message that tells each neighbour
 * "your halo is in". MPI_Win_flush completes the puts at the target, but nothing orders that
 * completion before the target's compute loop reads the halo rows. -DKEEP_SYNC puts the
 * messages back: hrace must then report nothing (the case would fail). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const int n = 32, rows = n / p, iters = 4;
  int up = (rank + p - 1) % p, dn = (rank + 1) % p;
  double *u[2];
  MPI_Win win[2];
  for (int k = 0; k < 2; k++) {
    MPI_Win_allocate((size_t)(rows + 2) * n * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &u[k], &win[k]);
    for (int e = 0; e < (rows + 2) * n; e++) u[k][e] = rank + e % 7;
    MPI_Win_lock_all(0, win[k]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int cur = 0;
  for (int it = 0; it < iters; it++) {
    double *a = u[cur], *b = u[1 - cur];
    MPI_Win w = win[cur];
    MPI_Put(a + n, n, MPI_DOUBLE, up, (MPI_Aint)(rows + 1) * n, n, MPI_DOUBLE, w);
    MPI_Put(a + (size_t)rows * n, n, MPI_DOUBLE, dn, 0, n, MPI_DOUBLE, w);
    MPI_Win_flush(up, w);
    MPI_Win_flush(dn, w);
#ifdef KEEP_SYNC
    MPI_Request rq[4];
    MPI_Irecv(NULL, 0, MPI_BYTE, up, it, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(NULL, 0, MPI_BYTE, dn, it, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(NULL, 0, MPI_BYTE, up, it, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(NULL, 0, MPI_BYTE, dn, it, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
#endif
    for (int i = 1; i <= rows; i++)
      for (int j = 0; j < n; j++)
        b[i * n + j] = 0.5 * a[i * n + j] + 0.125 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + (j + n - 1) % n] + a[i * n + (j + 1) % n]);
    cur = 1 - cur;
  }
  for (int k = 0; k < 2; k++) {
    MPI_Win_unlock_all(win[k]);
    MPI_Win_free(&win[k]);
  }
  MPI_Finalize();
  return 0;
}
