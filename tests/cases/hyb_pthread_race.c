/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 17 30
 */
/* A thread made with pthread_create (not OpenMP) updates window memory of its rank; rank 1
 * puts into rank 0's window after the barrier that follows all of it. Rank 0's main thread updates the window before it joins the thread that also updates it:
 * a race (the creation orders only the first store). Twin: hyb_pthread_norace.c. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int *x;

static void *worker(void *arg) {
  (void)arg;
  x[0] += 1;
  return NULL;
}

int main(int argc, char **argv) {
  int prov, rank, v = 7;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  x[0] += 10;
  pthread_join(t, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, x[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
