/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Under MPI_THREAD_MULTIPLE, two threads of each rank run PSCW epochs at once, each on its own
 * window: rank 0's threads start / put / complete, rank 1's post / wait and then read and
 * rewrite what was put. Both of rank 1's threads may read hrace's channel themselves while
 * they wait (core/chan.h, hrace__chan_help), but one at a time: the one that reads applies
 * the other's DONE too and must wake it, and neither may take a DONE before its records are
 * applied. Twin: pscw_self_threads_race. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ITERS 25
static MPI_Win win[2];
static int *x[2], rank, sum[2];
static MPI_Group peer;

static void *worker(void *arg) {
  int t = (int)(long)arg;
  for (int it = 0; it < ITERS; it++) {
    int v = it + t;
    if (rank == 0) {
      MPI_Win_start(peer, 0, win[t]);
      MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win[t]);
      MPI_Win_complete(win[t]);
    } else {
      MPI_Win_post(peer, 0, win[t]);
      MPI_Win_wait(win[t]);
      sum[t] += x[t][0];
      x[t][0] = 0;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int prov;
  MPI_Group world;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int t = 0; t < 2; t++) {
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x[t], &win[t]);
    x[t][0] = 0;
  }
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int other = 1 - rank;
  MPI_Group_incl(world, 1, &other, &peer);
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t th[2];
  if (prov == MPI_THREAD_MULTIPLE) {
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, (void *)(long)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  } else {
    for (int t = 0; t < 2; t++) worker((void *)(long)t);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", sum[0], sum[1]);
  MPI_Group_free(&peer);
  MPI_Group_free(&world);
  for (int t = 0; t < 2; t++) MPI_Win_free(&win[t]);
  MPI_Finalize();
  return 0;
}
