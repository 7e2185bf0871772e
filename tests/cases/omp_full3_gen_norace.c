/* hrace-test
 * ranks: 0
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Twin of omp_full3_gen_race: the same revocation of all of thread 1's biases by thread 0's
 * ordered read, and thread 1 keeps writing its part, but thread 0's write of a[N - 100] (in a
 * chunk left with a stale bias word) is inside the critical section too: ordered with thread
 * 1's, no race. After the region the initial thread reads all of `a` (ordered by its end). */
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
      { got = a[N / 2 + 10]; a[N - 100] = got; }
    }
  }
  double s = 0;
  for (int i = 0; i < N; i++) s += a[i];
  printf("%d\n", s > 0);
  free(a);
  return 0;
}
