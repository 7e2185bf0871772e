/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 31 26
 */
/* Twin of pscw_many_norace: in epoch 41, which carries a put into x[1], the target reads x[1]
 * before its MPI_Win_wait. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v = 7, s = 0;
  MPI_Win win;
  MPI_Group world, g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = x[2] = x[3] = 0;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int other = 1 - rank;
  MPI_Group_incl(world, 1, &other, &g);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 60; it++) {
    if (rank == 1) {
      MPI_Win_post(g, 0, win);
      if (it == 41) s += x[1];
      MPI_Win_wait(win);
      s += x[it % 4];
    } else {
      MPI_Win_start(g, 0, win);
      if (it % 3 == 2) MPI_Put(&v, 1, MPI_INT, 1, it % 4, 1, MPI_INT, win);
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
