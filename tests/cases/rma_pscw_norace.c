/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Twin of rma_pscw_race: the target touches its window only before MPI_Win_post and after
 * MPI_Win_wait (seed 003 R3, R4), the two origins use different locations, and a second round
 * ends its exposure epoch with MPI_Win_test in a loop instead of MPI_Win_wait. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 7, s = 0;
  MPI_Win win;
  MPI_Group world, g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    int origins[2] = {0, 2};
    MPI_Group_incl(world, 2, origins, &g);
  } else {
    int target = 1;
    MPI_Group_incl(world, 1, &target, &g);
  }
  for (int round = 0; round < 2; round++) {
    if (rank == 1) {
      x[0] = x[1] = x[2] = 0;
      MPI_Win_post(g, 0, win);
      if (round == 0) {
        MPI_Win_wait(win);
      } else {
        int done = 0;
        while (!done) MPI_Win_test(win, &done);
      }
      s += x[0] + x[1] + x[2];
    } else {
      MPI_Win_start(g, 0, win);
      if (rank == 0) {
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Accumulate(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
      } else {
        MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
      }
      MPI_Win_complete(win);
    }
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
