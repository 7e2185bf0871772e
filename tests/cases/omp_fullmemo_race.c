/* hrace-test
 * ranks: 0
 * expect: race
 * pair: 32 37
 * openmp: yes
 * cflags: -O0
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Full mode's per-code-address memo answer (access/thread.h's aids entry, access/full.c): the
 * read at line 32 meets elements in two states, never read yet (a[0], a[2], a[3], a[4], ...)
 * and already read by this thread at line 31 (a[1], a[5], ...), in the order B A A, so its
 * entry must hold the answer for the word it met last, not the memo's newest answer (which is
 * for the other word: a store of it would record a[3]'s read as line 31's). Thread 1 writes
 * a[3] with no synchronisation after the reads (the sleep only orders them in real time; the
 * verdict holds in either order): the race is lines 32 and 37.
 * Twin: omp_fullmemo_norace. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 64
static double a[N];

int main(void) {
  double s = 0, q = 0;
  for (int i = 0; i < N; i++) a[i] = i;
  #pragma omp parallel num_threads(2) reduction(+ : s, q)
  {
    if (omp_get_thread_num() == 0) {
      for (int i = 1; i < N; i += 4) q += a[i];
      for (int i = 0; i < N; i++) s += a[i];
    }
    /* no barrier: thread 1's store is not ordered after thread 0's reads */
    if (omp_get_thread_num() == 1) {
      usleep(200000);
      a[3] = -1.0;
    }
  }
  printf("%f %f\n", s, q);
  return 0;
}
