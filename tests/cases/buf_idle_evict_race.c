/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 36
 * pair: 35 37
 */
/* Idle regions leave the filter in batches (rma/buffers.c, IDLE_MAX + IDLE_BATCH): while an
 * MPI_Rput from row 0 is in flight, 199 more from new heap rows complete one by one (MPI_Wait),
 * so that their regions go idle and leave the filter 32 at a time; then row 190 (its region
 * still idle) is put from again. A store to row 0 or row 190 before the completion is a race
 * with that put; the same stores after it are not (twin: buf_idle_evict_norace.c). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, *base;
  enum { M = 200, W = 16 };
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate((M + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  int *rows = malloc(M * W * sizeof(int));
  for (int i = 0; i < M * W; i++) rows[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Request r0, r;
    MPI_Win_lock_all(0, win);
    MPI_Rput(&rows[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win, &r0); /* PUT */
    for (int i = 1; i < M; i++) {
      MPI_Rput(&rows[i * W], 1, MPI_INT, 1, i, 1, MPI_INT, win, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      rows[i * W] = -i; /* locally complete: no race */
    }
    MPI_Put(&rows[190 * W], 1, MPI_INT, 1, M, 1, MPI_INT, win); /* PUT2 */
    rows[0] = 1; /* STORE */
    rows[190 * W] = 2; /* STORE2 */
    MPI_Wait(&r0, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, rows[0]);
  MPI_Win_free(&win);
  free(rows);
  MPI_Finalize();
  return 0;
}
