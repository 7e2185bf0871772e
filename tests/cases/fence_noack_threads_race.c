/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 22 23
 */
/* Twin of fence_noack_threads_norace (MPI_THREAD_MULTIPLE, two threads per rank fencing their
 * own windows): thread 1 reads its window before the fence that completes the previous rank's
 * put into it. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define ITERS 25
static MPI_Win win[2];
static int *x[2], rank, size, sum[2];

static void *worker(void *arg) {
  int t = (int)(long)arg;
  MPI_Win_fence(0, win[t]);
  for (int it = 0; it < ITERS; it++) {
    int v = it + t + rank;
    MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win[t]);
    if (t == 1) sum[t] += x[t][0];
    MPI_Win_fence(0, win[t]);
    MPI_Win_fence(0, win[t]);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int prov;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < 2; t++) {
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x[t], &win[t]);
    x[t][0] = 0;
  }
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
  for (int t = 0; t < 2; t++) MPI_Win_free(&win[t]);
  MPI_Finalize();
  return 0;
}
