/* hrace-test
 * ranks: 0
 * expect: race
 * pair: 39 44
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Revocation by generation (clocks/shadow.c, "Biased chunks"; docs/access.md): the sweeps
 * leave each thread's part of `a` in chunks biased to it. Thread 0 then reads an element of
 * thread 1's part inside a critical section that thread 1 also writes it in: ordered, but it
 * takes back all of thread 1's biases at once, and thread 1's other chunks are left with a
 * stale word, free to anyone. Thread 1 keeps writing its part (re-biasing those chunks) while
 * thread 0 writes a[N - 100], in one of them, with no synchronisation: the unordered writes
 * must be reported. Twin: omp_full3_gen_norace (thread 0's write inside the critical section
 * too). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 65536
int main(void) {
  double *a = malloc(N * sizeof *a);
  if (!a) return 1;
  for (int i = 0; i < N; i++) a[i] = i;
  double got = 0;
  #pragma omp parallel num_threads(2)
  {
    for (int s = 0; s < 4; s++) {
      #pragma omp for schedule(static)
      for (int i = 0; i < N; i++)
        a[i] = 0.5 * a[i] + 1.0;
    }
    if (omp_get_thread_num() == 1) {
      for (int k = 0; k < 50; k++) {
        for (int i = N / 2; i < N; i++)
          if (i != N / 2 + 10 && i != N - 100) a[i] = a[i] + 1.0;
        #pragma omp critical
        { a[N / 2 + 10] += 1.0; a[N - 100] += 1.0; }
      }
    } else {
      #pragma omp critical
      got = a[N / 2 + 10];
      a[N - 100] = got;
    }
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i];
  printf("%d\n", s > 0);
  free(a);
  return 0;
}
