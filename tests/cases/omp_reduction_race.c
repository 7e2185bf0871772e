/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 17 17
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: the loop reduces `sum` correctly but also counts into `n`, shared, unprotected. */
#include <omp.h>
#include <stdio.h>
int main(void) {
  double sum = 0;
  int n = 0;
  #pragma omp parallel for num_threads(2) reduction(+ : sum) schedule(static, 1)
  for (int i = 0; i < 8; i++) {
    sum += i;
    n++;
  }
  printf("%f %d\n", sum, n);
  return 0;
}
