/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 17 19
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: each thread writes its slot and reads its neighbour's, with no barrier between. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double *slot = calloc(2, sizeof *slot), sum = 0;
  #pragma omp parallel num_threads(2) reduction(+ : sum)
  {
    int me = omp_get_thread_num();
    slot[me] = me + 1.0;
    /* no barrier */
    sum += slot[1 - me];
  }
  printf("%f\n", sum);
  free(slot);
  return 0;
}
