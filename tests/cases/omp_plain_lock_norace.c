/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_plain_lock_race: both threads take the lock. */
#include <omp.h>
#include <stdio.h>
long total;
int main(void) {
  omp_lock_t l;
  omp_init_lock(&l);
  #pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    omp_set_lock(&l);
    total += me + 1;
    omp_unset_lock(&l);
  }
  omp_destroy_lock(&l);
  printf("%ld\n", total);
  return 0;
}
