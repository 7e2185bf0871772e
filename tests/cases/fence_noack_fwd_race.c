/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 38 42
 */
/* Twin of fence_noack_fwd_norace: rank 0 reads t[0] in the epoch of rank 2's forwarded store,
 * after the fence that completed rank 1's put: a race with rank 2's store only. */
#include <mpi.h>
#include <stdio.h>

#define M 6000
#define ITERS 24

int main(int argc, char **argv) {
  int rank, *mine, *t, du, s = 0;
  MPI_Aint size;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(rank == 0 ? (M + 1) * sizeof(int) : sizeof(int), sizeof(int),
                          MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 0, &size, &du, &t);
  int v = rank;
  MPI_Win_fence(0, win);
  if (rank == 0)
    for (int i = 0; i <= M; i++) t[i] = 0;
  MPI_Win_fence(0, win);
  if (rank == 2) MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);   /* first connection to 0 */
  MPI_Win_fence(0, win);
  for (int it = 0; it < ITERS; it++) {
    v = it + rank;
    if (rank == 1) {
      for (int i = M; i > 0; i--) MPI_Put(&v, 1, MPI_INT, 0, i, 1, MPI_INT, win);
      MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 2) {
      t[0] = v;
      MPI_Send(&v, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
    }
    if (rank == 3) MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) s += t[0];
    MPI_Win_fence(0, win);
    MPI_Win_fence(0, win);
  }
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
