/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_plain_critical_race: one critical section name. */
#include <omp.h>
#include <stdio.h>
int main(void) {
  long total = 0;
  #pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    if (me == 0) {
      #pragma omp critical(a)
      total += 1;
    } else {
      #pragma omp critical(a)
      total += 2;
    }
  }
  printf("%ld\n", total);
  return 0;
}
