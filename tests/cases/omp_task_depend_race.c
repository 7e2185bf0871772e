/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 17 19
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: two tasks write x, their dependences name different variables. */
#include <omp.h>
#include <stdio.h>
int main(void) {
  int x = 0, a = 0, b = 0;
  #pragma omp parallel num_threads(2)
  #pragma omp single
  {
    #pragma omp task depend(out : a) shared(x)
    x = 1;
    #pragma omp task depend(out : b) shared(x)
    x = 2;
    #pragma omp taskwait
  }
  printf("%d %d %d\n", x, a, b);
  return 0;
}
