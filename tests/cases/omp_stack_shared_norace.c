/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_stack_shared_race: each thread writes its own element of a local array of
 * main; main reads them after the region. */
#include <omp.h>
#include <stdio.h>
int main(void) {
  int updates[2] = { 0, 0 };
  #pragma omp parallel num_threads(2) shared(updates)
  {
    int me = omp_get_thread_num();
    updates[me] = updates[me] + 1;
  }
  printf("%d\n", updates[0] + updates[1]);
  return 0;
}
