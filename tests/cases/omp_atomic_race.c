/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 18 20
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: an `omp atomic` update does not make a plain read of the same variable safe. */
#include <omp.h>
#include <stdio.h>
long hits;
int main(void) {
  long seen = 0;
  #pragma omp parallel num_threads(2) reduction(+ : seen)
  {
    if (omp_get_thread_num() == 0) {
      #pragma omp atomic
      hits += 1;
    } else {
      seen = hits;
    }
  }
  printf("%ld %ld\n", hits, seen);
  return 0;
}
