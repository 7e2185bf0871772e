/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 40 48
 */
/* Two windows on one page with an array between them (access/filter.h: the page table keeps a
 * page's bit while any tracked range, slack included, still holds a byte of it). The first
 * window is freed: its page must stay in the filter for the second. Rank 1 computes on the
 * array between (f: no race, nothing targets it) and on the bytes just before and after the
 * second window, while rank 0's put into the second window's first element is in flight; its
 * store to that element is a race with the put. Twin: gate_twowin_norace.c, the store after the
 * epoch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  double v = 7, s = 0;
  MPI_Win w1, w2;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double *blk = aligned_alloc(4096, 4096);   /* [0,64) window 1, [64,128) f, [128,192) window 2 */
  double *f = blk + 64, *x2 = blk + 128;
  for (int i = 0; i < 512; i++) blk[i] = i;
  MPI_Win_create(blk, 64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w1);
  MPI_Win_create(x2, 64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
  MPI_Win_fence(0, w1);
  if (rank == 0) MPI_Put(&v, 1, MPI_DOUBLE, 1, 3, 1, MPI_DOUBLE, w1);
  MPI_Win_fence(0, w1);
  MPI_Win_free(&w1);
  if (rank == 1)
    for (int r = 0; r < 3; r++)
      for (int i = 0; i < 64; i++) {
        s += f[i] + blk[i];
        f[i] = s;
      }
  MPI_Win_lock_all(0, w2);
  if (rank == 0) {
    MPI_Put(&v, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, w2);
    MPI_Win_flush_all(w2);
  } else {
    for (int i = 0; i < 64; i++) {
      s += f[i];
      f[i] = s;
    }
    x2[64] = s;                 /* just after window 2 */
    x2[0] = 1;
  }
  MPI_Win_unlock_all(w2);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    x2[1] = 2;
  }
  printf("rank %d: %g %g\n", rank, s, x2[0]);
  MPI_Win_free(&w2);
  free(blk);
  MPI_Finalize();
  return 0;
}
