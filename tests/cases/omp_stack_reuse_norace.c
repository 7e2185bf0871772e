/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode forgets a thread's dead stack when it switches tasks: unordered tasks that run one
 * after the other on a thread use the same stack bytes for their locals, and so do the
 * thread's own frames between tasks. Detached threads that end and new ones that start may
 * share a stack too (glibc caches them). */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static int work(int k) {
  volatile int local[64];
  for (int i = 0; i < 64; i++) local[i] = k + i;
  int s = 0;
  for (int i = 0; i < 64; i++) s += local[i];
  return s;
}

_Atomic int ended;
static void *detached(void *arg) {
  int s = work((int)(long)arg);
  atomic_fetch_add(&ended, 1);
  return (void *)(long)s;
}

int main(void) {
  long total = 0;
  #pragma omp parallel num_threads(2) reduction(+ : total)
  {
    #pragma omp single
    for (int t = 0; t < 200; t++) {
      #pragma omp task
      { int s = work(t); (void)s; }
    }
    total += work(omp_get_thread_num());
  }
  for (int i = 0; i < 4; i++) {
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&th, &attr, detached, (void *)(long)i);
    pthread_attr_destroy(&attr);
    while (atomic_load(&ended) <= i) {}
    usleep(2000);
  }
  printf("%ld\n", total);
  return 0;
}
