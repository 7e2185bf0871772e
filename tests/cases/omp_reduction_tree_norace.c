/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=8
 */
/* A team of 8: libomp combines reductions in a tree inside its barrier (the combiner is
 * instrumented code called by the runtime, reading other threads' private copies);
 * omp_reduction_critical_norace has the critical-section combine. */
#include <omp.h>
#include <stdio.h>
int main(void) {
  double sum = 0;
  long n = 0;
  for (int rep = 0; rep < 3; rep++) {
    #pragma omp parallel for num_threads(8) reduction(+ : sum, n)
    for (int i = 0; i < 64; i++) {
      sum += i;
      n++;
    }
  }
  printf("%f %ld\n", sum, n);
  return 0;
}
