/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_plain_barrier_race: a barrier between the writes and the reads. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double *slot = calloc(2, sizeof *slot), sum = 0;
  #pragma omp parallel num_threads(2) reduction(+ : sum)
  {
    int me = omp_get_thread_num();
    slot[me] = me + 1.0;
    #pragma omp barrier
    sum += slot[1 - me];
  }
  printf("%f\n", sum);
  free(slot);
  return 0;
}
