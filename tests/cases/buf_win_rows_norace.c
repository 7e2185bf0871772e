/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The wavefront's pattern (bench/kernels/wavefront.c): one tiny PSCW epoch per row, each
 * putting the row's last value from window memory. Such an origin buffer lies wholly in the
 * process's window and has no filter range of its own (rma/buffers.c, issue): the window's
 * shadow holds the put's descriptor until MPI_Win_complete, so a store to the value while the
 * put of row 40 is in flight (after 39 rows whose puts completed) is a race with that put;
 * twin (buf_win_rows_norace.c): the store after MPI_Win_complete. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *a;
  enum { M = 64, W = 8 };
  MPI_Win win;
  MPI_Group world, peer;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(M * W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
  for (int i = 0; i < M * W; i++) a[i] = i;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int other = 1 - rank;
  MPI_Group_incl(world, 1, &other, &peer);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < M; i++) {
    if (rank == 1) {
      MPI_Win_post(peer, 0, win);
      MPI_Win_wait(win);
      continue;
    }
    for (int c = 1; c < W; c++) a[i * W + c] += a[i * W + c - 1];
    MPI_Win_start(peer, 0, win);
    if (i == 40) {
      MPI_Put(&a[i * W + W - 1], 1, MPI_INT, 1, i * W, 1, MPI_INT, win); /* PUT */
      MPI_Win_complete(win);
      a[i * W + W - 1] = 0; /* STORE */
    } else {
      MPI_Put(&a[i * W + W - 1], 1, MPI_INT, 1, i * W, 1, MPI_INT, win);
      MPI_Win_complete(win);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, a[M * W - 1]);
  MPI_Group_free(&peer);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
