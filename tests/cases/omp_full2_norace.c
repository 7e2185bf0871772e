/* hrace-test
 * ranks: 0
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Twin of omp_full2_race: the same biased chunks (each thread's part of `a`, stored with plain
 * stores after the sweeps), and both threads update one element of thread 0's part, but inside
 * a critical section: thread 1 takes the chunk's bias back, and the ordered updates must not
 * be reported. After the region the initial thread reads all of `a`, taking back thread 1's
 * chunks too (ordered by the region's end). */
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
    for (int k = 0; k < 200; k++) {
      #pragma omp critical
      a[N / 4] = a[N / 4] + t;
    }
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i];
  printf("%f\n", s);
  free(a);
  return 0;
}
