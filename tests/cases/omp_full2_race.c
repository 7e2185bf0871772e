/* hrace-test
 * ranks: 0
 * expect: race
 * pair: 33 33
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Full mode's biased chunks (clocks/shadow.c, "Biased chunks"; docs/access.md): compiled
 * without loop hoisting, so every load and store is a callback; the sweeps leave each thread's
 * part of `a` in chunks biased to it, stored with plain stores. Then both threads hammer one
 * element of thread 0's part with no synchronisation: thread 1 must take the chunk's bias back
 * while thread 0 may be storing there, and the unordered updates must be reported. Twin:
 * omp_full2_norace (the same updates inside a critical section). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 8192
int main(void) {
  double *a = malloc(N * sizeof *a);
  if (!a) return 1;
  for (int i = 0; i < N; i++) a[i] = i;
  #pragma omp parallel num_threads(2)
  {
    for (int s = 0; s < 4; s++) {
      #pragma omp for schedule(static)
      for (int i = 0; i < N; i++)
        a[i] = 0.5 * a[i] + 1.0;
    }
    const int t = omp_get_thread_num();
    for (int k = 0; k < 200; k++)
      a[N / 4] = a[N / 4] + t;
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i];
  printf("%f\n", s);
  free(a);
  return 0;
}
