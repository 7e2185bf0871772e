/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Two threads made with pthread_create update window memory of their rank; rank 1 puts into
 * rank 0's window after the joins and a barrier. Both threads update the counter under one
 * pthread mutex, the second after a condition variable said the first is done (timed waits,
 * pthread_cond_clockwait, as C++ uses them): no race
 * (reported before hrace modelled pthread locks). Twin: hyb_pthread_mutex_race.c. */
#define _GNU_SOURCE   /* pthread_cond_clockwait */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

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
  pthread_mutex_lock(&mu);
  while (!ready) {   /* as C++'s condition_variable::wait_for does it */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += 1000000;
    if (t.tv_nsec >= 1000000000) t.tv_sec++, t.tv_nsec -= 1000000000;
    pthread_cond_clockwait(&cv, &mu, CLOCK_MONOTONIC, &t);
  }
  x[0] += 1;   /* after the first thread's, under the mutex */
  pthread_mutex_unlock(&mu);
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
