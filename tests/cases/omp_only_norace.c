/* hrace-test
 * ranks: 0
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_only_race: the sum is a reduction. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double *v = malloc(100 * sizeof *v), total = 0;
  for (int i = 0; i < 100; i++) v[i] = i;
  #pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : total)
  for (int i = 0; i < 100; i++)
    total += v[i];
  printf("%f\n", total);
  free(v);
  return 0;
}
