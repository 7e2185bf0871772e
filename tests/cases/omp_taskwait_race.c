/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 20 21
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: the creator reads what its task writes, without waiting for it (whichever thread
 * runs the task, and whenever). */
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
    v = *r;
    #pragma omp taskwait
  }
  printf("%d\n", v);
  free(r);
  return 0;
}
