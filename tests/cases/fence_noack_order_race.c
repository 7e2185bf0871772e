/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 27 28
 */
/* Twin of fence_noack_order_norace: rank 0 reads x[0] in the epoch of rank 2's put, after the
 * fence that completed rank 1's: a race with rank 2's put only. Were rank 1's older record
 * applied after rank 2's, the two puts would be reported instead (or the read found ordered
 * after rank 1's write, and rank 2's missed). */
#include <mpi.h>
#include <stdio.h>

#define ITERS 30

int main(int argc, char **argv) {
  int rank, *x, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Win_fence(0, win);
  for (int it = 0; it < ITERS; it++) {
    int v = it + rank;
    if (rank == 1) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 2) MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    if (rank == 0) s += x[0];
    MPI_Win_fence(0, win);
  }
  MPI_Win_fence(0, win);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
