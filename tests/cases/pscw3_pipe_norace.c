/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A pipeline of tiny PSCW epochs (bench/kernels/wavefront.c's shape): rank 1 posts and waits,
 * rank 0 starts, puts one value and completes, 2000 times. Both ranks wait in hrace while
 * the other's message comes, and read it themselves: the waiter counts as a reader of its
 * rings while it spins and says when it last looked (core/chan.c, hrace__chan_spin), and a
 * sender that sees it rings no doorbell. The records and the DONE travel in that order and
 * the waiter applies both, the records' completion included, before its MPI_Win_wait
 * returns: rank 1 reads each value after its wait (with the completion left out of the
 * DONE's handling, this case reports those reads).
 * Twin: pscw3_pipe_race. */
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
      MPI_Win_wait(win);
      sum += x[i];
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
  if (rank == 1) printf("%d\n", sum == (long)ROUNDS * (ROUNDS + 1) / 2 ? 0 : 1);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
