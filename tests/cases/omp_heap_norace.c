/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_heap_race: each thread updates its own elements of the block; the initial
 * thread sums them after the region. */
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
    h[me + 4] += me + 1;
  }
  printf("%ld\n", h[1] + h[2] + h[4] + h[5]);
  free(h);
  return 0;
}
