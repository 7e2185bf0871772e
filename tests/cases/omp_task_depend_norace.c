/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of omp_task_depend_race: both tasks name x in depend(out), so they run in order; a
 * third reads it with depend(in). */
#include <omp.h>
#include <stdio.h>
int main(void) {
  int x = 0, y = 0;
  #pragma omp parallel num_threads(2)
  #pragma omp single
  {
    #pragma omp task depend(out : x) shared(x)
    x = 1;
    #pragma omp task depend(out : x) shared(x)
    x = 2;
    #pragma omp task depend(in : x) shared(x, y)
    y = x;
    #pragma omp taskwait
  }
  printf("%d %d\n", x, y);
  return 0;
}
