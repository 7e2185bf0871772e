/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_reduction_race: both are reductions (libomp combines by atomics for a team
 * this small). */
#include <omp.h>
#include <stdio.h>
int main(void) {
  double sum = 0;
  int n = 0;
  #pragma omp parallel for num_threads(2) reduction(+ : sum, n) schedule(static, 1)
  for (int i = 0; i < 8; i++) {
    sum += i;
    n++;
  }
  printf("%f %d\n", sum, n);
  return 0;
}
