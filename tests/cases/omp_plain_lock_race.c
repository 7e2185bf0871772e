/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 20 23
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: thread 0 updates a global under an OpenMP lock, thread 1 without it. */
#include <omp.h>
#include <stdio.h>
long total;
int main(void) {
  omp_lock_t l;
  omp_init_lock(&l);
  #pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    if (me == 0) {
      omp_set_lock(&l);
      total += 1;
      omp_unset_lock(&l);
    } else {
      total += 2;
    }
  }
  omp_destroy_lock(&l);
  printf("%ld\n", total);
  return 0;
}
