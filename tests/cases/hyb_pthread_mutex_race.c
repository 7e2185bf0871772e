/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 23 32
 */
/* Two threads made with pthread_create update window memory of their rank; rank 1 puts into
 * rank 0's window after the joins and a barrier. The second thread updates the counter
 * without ever taking the mutex, so whichever runs first, nothing orders its update with the
 * first thread's (a twin whose second thread took the mutex after its update would be ordered
 * in the runs where it locked first: lock order is not fixed). Twin: hyb_pthread_mutex_norace.c. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int *x;
static int ready;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *first(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  x[0] += 1;
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  x[0] += 1;   /* without the mutex */
  return NULL;
}

int main(int argc, char **argv) {
  int prov, rank, v = 7;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  pthread_t a, b;
  pthread_create(&b, NULL, second, NULL);
  pthread_create(&a, NULL, first, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
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
