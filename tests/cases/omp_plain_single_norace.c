/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_plain_single_race: the barrier at the end of `single` orders the reads. */
#include <omp.h>
#include <stdio.h>
double setting;
int main(void) {
  double got[2] = { 0, 0 };
  #pragma omp parallel num_threads(2)
  {
    #pragma omp single
    setting = 3.5;
    got[omp_get_thread_num()] = setting;
  }
  printf("%f %f\n", got[0], got[1]);
  return 0;
}
