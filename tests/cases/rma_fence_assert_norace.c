/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_fence_assert_race: a plain fence (no MPI_MODE_NOPRECEDE) is a barrier over the
 * window group, so rank 0's load follows rank 1's store; the put is ordered after rank 1's
 * fence, and rank 1 touches x[1] again only after the closing fence (MPI_MODE_NOSUCCEED |
 * MPI_MODE_NOSTORE | MPI_MODE_NOPUT change nothing for hrace). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *mine, *x, s = 0, v = 5;
  MPI_Aint size;
  int du;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 1, &size, &du, &x);
  if (rank == 1) {
    mine[0] = 1;
    mine[1] = 0;
  }
  MPI_Win_fence(0, win);
  if (rank == 0) {
    s += x[0];
    MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win);
  if (rank == 1) mine[1] = 2;
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
