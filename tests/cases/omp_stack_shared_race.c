/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 16 16
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: a local of main, shared into the region, incremented by every thread (issue 16's
 * `updates++`). */
#include <omp.h>
#include <stdio.h>
int main(void) {
  int updates = 0;
  #pragma omp parallel num_threads(2) shared(updates)
  {
    updates = updates + 1;
  }
  printf("%d\n", updates);
  return 0;
}
