/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: OMP_TOOL=disabled
 */
/* OpenMP without OMPT (issue 23 item 2): hrace cannot see the threads' synchronisation, so it
 * warns and judges no race between threads, not even this real one (it would otherwise also
 * report every correctly synchronised pair). */
#include <omp.h>
#include <stdio.h>
long total;
int main(void) {
  #pragma omp parallel num_threads(2)
  {
    #pragma omp critical
    total += 1;
    total += 1;
  }
  printf("%ld\n", total);
  return 0;
}
