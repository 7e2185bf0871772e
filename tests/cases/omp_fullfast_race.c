/* hrace-test
 * ranks: 0
 * expect: race
 * pair: 32 34
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Full mode's fast path for single accesses (access/full.c, full_fast): compiled without loop
 * hoisting, so every load and store of the sweeps is a callback, and after the first sweeps
 * each one is answered from the shadow's memo with one store. The last sweep has no barrier
 * after it (nowait): thread 1 reads an element that thread 0 writes there, through that path.
 * Twin: omp_fullfast_norace. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
int main(void) {
  double *a = malloc(N * sizeof *a), got = 0;
  if (!a) return 1;
  for (int i = 0; i < N; i++) a[i] = i;
  #pragma omp parallel num_threads(2)
  {
    for (int s = 0; s < 8; s++) {
      #pragma omp for schedule(static)
      for (int i = 0; i < N; i++)
        a[i] = 0.5 * a[i] + 1.0;
    }
    #pragma omp for schedule(static) nowait
    for (int i = 0; i < N; i++)
      a[i] = a[i] + 1.0;
    if (omp_get_thread_num() == 1)
      got = a[10];
  }
  printf("%f\n", got);
  free(a);
  return 0;
}
