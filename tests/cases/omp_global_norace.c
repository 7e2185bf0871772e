/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_global_race: each thread adds to its own element of a global array, the
 * initial thread reads them all after the region (its join orders them). */
#include <omp.h>
#include <stdio.h>
double counter[2];
double scale = 1.0;
int main(void) {
  #pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    for (int i = 0; i < 4; i++) counter[me] += scale;
  }
  printf("%f\n", counter[0] + counter[1]);
  return 0;
}
