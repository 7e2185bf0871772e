/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 35
 */
/* Twin of pscw3_pipe_norace: in the last round rank 1 reads its x before its MPI_Win_wait,
 * while rank 0's put into it may be in flight. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 2000

int main(int argc, char **argv) {
  int rank, *x;
  long sum = 0;
  MPI_Win win;
  MPI_Group world, g;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(ROUNDS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < ROUNDS; i++) x[i] = 0;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int peer = 1 - rank;
  MPI_Group_incl(world, 1, &peer, &g);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < ROUNDS; i++) {
    if (rank == 1) {
      MPI_Win_post(g, 0, win);
      if (i == ROUNDS - 1) sum += x[i];
      MPI_Win_wait(win);
      if (i < ROUNDS - 1) sum += x[i];
    } else {
      int v = i + 1;
      MPI_Win_start(g, 0, win);
      MPI_Put(&v, 1, MPI_INT, 1, i, 1, MPI_INT, win);
      MPI_Win_complete(win);
    }
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("%d\n", sum > 0 ? 0 : 1);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
