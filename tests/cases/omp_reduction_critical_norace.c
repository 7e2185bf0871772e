/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 * env: KMP_FORCE_REDUCTION=critical
 */
/* Reductions combined in a critical section (KMP_FORCE_REDUCTION=critical): the combine
 * runs between OMPT reduction events; see also omp_reduction_tree_norace (a tree). */
#include <omp.h>
#include <stdio.h>
int main(void) {
  double sum = 0;
  long n = 0;
  for (int rep = 0; rep < 3; rep++) {
    #pragma omp parallel for num_threads(4) reduction(+ : sum, n)
    for (int i = 0; i < 64; i++) {
      sum += i;
      n++;
    }
  }
  printf("%f %ld\n", sum, n);
  return 0;
}
