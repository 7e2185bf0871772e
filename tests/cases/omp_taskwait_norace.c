/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_taskwait_race: the creator waits for its task before reading. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int *r = malloc(sizeof *r), v = 0;
  *r = 0;
  #pragma omp parallel num_threads(2)
  #pragma omp single
  {
    #pragma omp task
    *r = 42;
    #pragma omp taskwait
    v = *r;
  }
  printf("%d\n", v);
  free(r);
  return 0;
}
