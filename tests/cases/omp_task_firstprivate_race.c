/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 25 26
 * pair: 26 26
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_task_firstprivate_norace: the tasks also add into one shared counter. */
#include <omp.h>
#include <stdio.h>
int out[400];
long counter;
int main(void) {
  #pragma omp parallel num_threads(2)
  #pragma omp single
  for (int t = 0; t < 400; t++) {
    int priv[8];
    for (int k = 0; k < 8; k++) priv[k] = t + k;
    #pragma omp task firstprivate(priv, t)
    {
      priv[0] += priv[7];
      for (int k = 1; k < 8; k++) priv[k] = priv[k - 1] * 2;
      out[t] = priv[7];
      long c = counter;
      counter = c + 1;
    }
  }
  printf("%ld\n", counter);
  return 0;
}
