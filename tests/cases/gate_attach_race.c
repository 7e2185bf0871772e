/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 38 44
 */
/* Memory that becomes window memory by MPI_Win_attach after the process computed on it
 * (access/filter.h: its pages had no tracked byte, so the page table let its accesses out, and
 * the gap cache held the memory around it). Rank 1 reads and writes `a` and its neighbour
 * before the attach, then computes on the neighbour and stores to a[3] while rank 0's put into
 * a[3] is in flight: a race, found only if the attach set a's page bits before it returned.
 * Twin: gate_attach_norace.c, the store to a[3] after the epoch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank;
  double v = 4, s = 0;
  MPI_Aint addr = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  double *blk = aligned_alloc(4096, 8192), *a = blk + 512 + 8, *nb = blk + 512 + 72;
  for (int i = 0; i < 1024; i++) blk[i] = i;
  if (rank == 1) {
    for (int r = 0; r < 3; r++)
      for (int i = 0; i < 64; i++) {
        s += a[i] + nb[i];
        a[i] = nb[i] = s;
      }
    MPI_Win_attach(win, a, 64 * sizeof(double));
    MPI_Get_address(&a[3], &addr);
  }
  MPI_Bcast(&addr, 1, MPI_AINT, 1, MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(&v, 1, MPI_DOUBLE, 1, addr, 1, MPI_DOUBLE, win);
    MPI_Win_flush(1, win);
  } else {
    for (int i = 0; i < 64; i++) nb[i] += s;
    a[-1] = s;                  /* just before the attached memory */
    a[64] = s;                  /* just after it */
    a[3] = 5;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    a[4] = 6;
    MPI_Win_detach(win, a);
  }
  printf("rank %d: %g\n", rank, s);
  MPI_Win_free(&win);
  free(blk);
  MPI_Finalize();
  return 0;
}
