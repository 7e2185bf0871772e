/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_atomic_race: `omp atomic` updates and an atomic read, and C11 atomics: atomic
 * accesses of one width do not race with each other. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
long hits;
_Atomic int flag;
int main(void) {
  long seen = 0;
  #pragma omp parallel num_threads(2) reduction(+ : seen)
  {
    #pragma omp atomic
    hits += 1;
    #pragma omp atomic read
    seen = hits;
    atomic_fetch_add(&flag, 1);
    seen += atomic_load(&flag);
  }
  printf("%ld %ld\n", hits, seen);
  return 0;
}
