/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 33 38
 */
/* Twin of pscw_late_norace: rank 2 receives rank 0's message only after its own epoch, so
 * its put into rank 1's x[0] is not ordered with rank 0's. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 7, token = 0;
  MPI_Win win;
  MPI_Group world, g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rank == 1) {
    int origins[2] = {0, 2};
    MPI_Group_incl(world, 2, origins, &g);
  } else {
    int target = 1;
    MPI_Group_incl(world, 1, &target, &g);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_post(g, 0, win);
    MPI_Win_wait(win);
  } else if (rank == 0) {
    MPI_Win_start(g, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  } else {
    MPI_Win_start(g, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x[0] + token);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
