/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 40 31
 * pair: 42 44
 * pair: 41 32
 */
/* General active target: ranks 0 and 2 access rank 1 between MPI_Win_start and
 * MPI_Win_complete, rank 1 exposes its window between MPI_Win_post and MPI_Win_wait. The
 * target's accesses inside its exposure epoch race with the origins' operations (31, 32),
 * and the two origins' puts to one location (x[2], which the target leaves alone) race with
 * each other. Before the post and after
 * the wait, the target is ordered (29, 34). */
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
    x[0] = x[1] = x[2] = 0;
    MPI_Win_post(g, 0, win);
    s += x[0];
    x[1] = 5;
    MPI_Win_wait(win);
    s += x[0] + x[1] + x[2];
  } else {
    int target = 1;
    MPI_Group_incl(world, 1, &target, &g);
    MPI_Win_start(g, 0, win);
    if (rank == 0) {
      MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Accumulate(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
      MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    } else {
      MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    }
    MPI_Win_complete(win);
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
