/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* A flush to another process returns without waiting for the target's acknowledgement
 * (rma/ops.c, hrace__rma_complete_remote): its completion may still be unread, behind the
 * records, when the flush returns. Rank 0 flushes 300 puts, then four interleaved puts of 65536
 * separate ints each (a strided type: 65536 ranges each for the target's progress thread),
 * flushes, and tells rank 1 through rank 2 with point-to-point messages, which carry rank 0's
 * clock but not hrace's records: rank 1's load is ordered after every put only if the target
 * applied the records and completions before rank 0's clock left (the ping before a clock is
 * published). With the ping switched off, rank 1 loaded before they were applied (a false race
 * in 2 of 4 runs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define M 65536

int main(int argc, char **argv) {
  int rank, *x, token = 0, s = 0;
  MPI_Win win;
  MPI_Datatype strided;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * M * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 4 * M; i++) x[i] = 0;
  MPI_Type_vector(M, 1, 4, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int *v = calloc(M, sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    for (int i = 0; i < 300; i++) {
      MPI_Put(&i, 1, MPI_INT, 1, i % 4, 1, MPI_INT, win);
      MPI_Win_flush(1, win);
    }
    for (int k = 0; k < 4; k++) MPI_Put(v, M, MPI_INT, 1, k, 1, strided, win);   /* disjoint */
    MPI_Win_flush(1, win);
    MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  } else if (rank == 2) {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s = x[0] + x[1] + x[2] + x[3] + x[4 * M - 1];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  free(v);
  MPI_Type_free(&strided);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
