/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 26 28
 */
/* Twin of pscw_halo_norace: in round 25 each rank reads its halo x[1] between its
 * MPI_Win_complete and its MPI_Win_wait, while the other's put into it may be under way. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[2] = {1, 2}, s = 0;
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
  for (int it = 0; it < 40; it++) {
    MPI_Win_post(g, 0, win);
    MPI_Win_start(g, 0, win);
    MPI_Put(&v[it % 2], 1, MPI_INT, other, it % 2, 1, MPI_INT, win);
    MPI_Win_complete(win);
    if (it == 25) s += x[1];
    MPI_Win_wait(win);
    s += x[it % 2];
    v[it % 2] = s;
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
