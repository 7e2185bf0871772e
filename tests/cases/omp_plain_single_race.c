/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 17 18
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: one thread sets up a value in `single nowait`; the others read it at once. */
#include <omp.h>
#include <stdio.h>
double setting;
int main(void) {
  double got[2] = { 0, 0 };
  #pragma omp parallel num_threads(2)
  {
    #pragma omp single nowait
    setting = 3.5;
    got[omp_get_thread_num()] = setting;
  }
  printf("%f %f\n", got[0], got[1]);
  return 0;
}
