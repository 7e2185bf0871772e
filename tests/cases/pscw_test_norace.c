/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The target ends its exposure epoch with MPI_Win_test: a call that returns false orders
 * nothing, the one that returns true joins the origin's clock. The target reads x[0] only after
 * that; it touches x[1] while the epoch is open, which nobody accesses. Twin: pscw_test_race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 7, s = 0, token = 0;
  MPI_Win win;
  MPI_Group world, g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int other = 1 - rank;
  MPI_Group_incl(world, 1, &other, &g);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    int done = 0;
    MPI_Win_post(g, 0, win);
    MPI_Win_test(win, &done);   /* rank 0 cannot have completed: it waits for the token */
    s += x[1];
    MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    while (!done) MPI_Win_test(win, &done);
    s += x[0];
  } else {
    MPI_Win_start(g, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
