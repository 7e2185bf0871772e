/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 18 21
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: two critical sections with different names exclude nothing between them. */
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
      #pragma omp critical(b)
      total += 2;
    }
  }
  printf("%ld\n", total);
  return 0;
}
