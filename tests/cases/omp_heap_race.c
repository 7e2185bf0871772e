/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 19 19
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: both threads update the first element of a heap block. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  long *h = calloc(16, sizeof *h);
  if (!h) return 1;
  #pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    h[me + 1] = me;
    h[0] += me + 1;
  }
  printf("%ld\n", h[0]);
  free(h);
  return 0;
}
