/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 23 27
 */
/* A get into a stack buffer, st[4..8) of a local array, with the locals around it on the same
 * page (access/filter.h: the page table lets out only pages without a tracked byte; on this one
 * the exact ranges and the thread's gap cache decide). Rank 0 reads and writes st[3] and
 * st[8], the elements just before and just after the buffer, and `k`, another local, while the
 * get is in flight (no race), and stores to st[7], the buffer's last element: a race with the
 * get. Twin: gate_stack_norace.c, the store after the flush. */
#include <mpi.h>
#include <stdio.h>

static double pull(MPI_Win win, int rounds) {
  double st[12], s = 0;
  volatile int k = 0;
  for (int i = 0; i < 12; i++) st[i] = i;
  for (int r = 0; r < rounds; r++) {
    for (k = 0; k < 100; k++) s += st[3] + st[8];
    st[3] = s;
    st[8] = s;
    MPI_Get(&st[4], 4, MPI_DOUBLE, 1, 0, 4, MPI_DOUBLE, win);
    for (k = 0; k < 100; k++) s += st[3] + st[8];
    st[3] = 1;
    st[8] = 2;
    if (r == rounds - 1) st[7] = 3;
    MPI_Win_flush_all(win);
  }
  return s + st[7];
}

int main(int argc, char **argv) {
  int rank;
  double *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 8; i++) x[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) s = pull(win, 2);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %g\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
