/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* An origin's MPI_Win_complete to a single target sends its DONE without waiting for an
 * acknowledgement (src/rma/pscw.c); the origin's next publication, a message to a third
 * process, pings the target first. Rank 0 puts into rank 1's x[0] and completes, then tells
 * rank 2, which puts into the same x[0] in rank 1's same exposure epoch: ordered after rank
 * 0's put by the message. Twin: pscw_late_race. */
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
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_start(g, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x[0] + token);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
