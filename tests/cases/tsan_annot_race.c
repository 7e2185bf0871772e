/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 49 87
 * pair: 52 90
 * pair: 57 93
 * pair: 62 98
 * pair: 66 102
 * pair: 69 105
 */
/* ThreadSanitizer's annotation ABI under hrace-cc (issue 18 item 5): a thread made with
 * pthread_create and the main thread share window memory (MPI_Win_allocate), ordered only by
 * annotations, one kind per word of the window: __tsan_release / __tsan_acquire (x[0]),
 * AnnotateHappensBefore / After (x[1]), a spin lock annotated with AnnotateRWLock* (x[2]) and
 * with __tsan_mutex_* (x[3]), AnnotateBenignRaceSized (x[4]) and AnnotateIgnoreWrites* (x[5]).
 * Each annotation is wrong (no acquire, another address, another lock object, the benign
 * range elsewhere, the ignored region closed before the store): six races. Twin:
 * tsan_annot_norace.c. */
#include <mpi.h>
#include <pthread.h>
#include <sanitizer/tsan_interface.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

/* Valgrind's / TSan's dynamic annotations: no standard header declares them. */
void AnnotateHappensBefore(const char *f, int l, const volatile void *a);
void AnnotateHappensAfter(const char *f, int l, const volatile void *a);
void AnnotateRWLockCreate(const char *f, int l, const volatile void *m);
void AnnotateRWLockDestroy(const char *f, int l, const volatile void *m);
void AnnotateRWLockAcquired(const char *f, int l, const volatile void *m, long is_w);
void AnnotateRWLockReleased(const char *f, int l, const volatile void *m, long is_w);
void AnnotateBenignRaceSized(const char *f, int l, const volatile void *a, unsigned long n,
                             const char *d);
void AnnotateIgnoreWritesBegin(const char *f, int l);
void AnnotateIgnoreWritesEnd(const char *f, int l);

static int *x;
static atomic_int flag0, flag1;
static atomic_flag spin2 = ATOMIC_FLAG_INIT, spin3 = ATOMIC_FLAG_INIT;
static int other1, lock2, other2, mutex3, other3;   /* the annotated objects */

static void take(atomic_flag *s) { while (atomic_flag_test_and_set(s)) sched_yield(); }
static void drop(atomic_flag *s) { atomic_flag_clear(s); }
static void wait_for(atomic_int *f) { while (!atomic_load(f)) sched_yield(); }

static void *worker(void *arg) {
  (void)arg;
  x[0] = 10;
  __tsan_release(&flag0);
  atomic_store(&flag0, 1);
  x[1] = 11;
  AnnotateHappensBefore(__FILE__, __LINE__, &flag1);
  atomic_store(&flag1, 1);
  take(&spin2);
  AnnotateRWLockAcquired(__FILE__, __LINE__, &other2, 1);
  x[2] += 2;
  AnnotateRWLockReleased(__FILE__, __LINE__, &other2, 1);
  drop(&spin2);
  take(&spin3);
  __tsan_mutex_post_lock(&other3, 0, 0);
  x[3] += 3;
  __tsan_mutex_pre_unlock(&other3, 0);
  drop(&spin3);
  __tsan_mutex_post_unlock(&other3, 0);
  x[4] = 14;
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  x[5] = 15;
  return NULL;
}

int main(int argc, char **argv) {
  int prov, rank, sum = 0;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 8; i++) x[i] = 0;
  AnnotateRWLockCreate(__FILE__, __LINE__, &lock2);
  __tsan_mutex_create(&mutex3, 0);
  AnnotateBenignRaceSized(__FILE__, __LINE__, &x[6], sizeof(int), "a statistic");
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  wait_for(&flag0);
  /* no __tsan_acquire */
  sum += x[0];
  wait_for(&flag1);
  AnnotateHappensAfter(__FILE__, __LINE__, &other1);
  sum += x[1];
  take(&spin2);
  AnnotateRWLockAcquired(__FILE__, __LINE__, &lock2, 1);
  x[2] += 1;
  AnnotateRWLockReleased(__FILE__, __LINE__, &lock2, 1);
  drop(&spin2);
  take(&spin3);
  __tsan_mutex_post_lock(&mutex3, 0, 0);
  x[3] += 1;
  __tsan_mutex_pre_unlock(&mutex3, 0);
  drop(&spin3);
  __tsan_mutex_post_unlock(&mutex3, 0);
  x[4] = 4;
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  x[5] = 5;
  pthread_join(t, NULL);
  AnnotateRWLockDestroy(__FILE__, __LINE__, &lock2);
  __tsan_mutex_destroy(&mutex3, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d %d %d %d\n", rank, sum, x[2], x[3], x[5]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
