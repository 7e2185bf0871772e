/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Tasks with firstprivate arrays they modify: the creator fills each task's argument block
 * (clang: in the task descriptor from __kmpc_omp_task_alloc; gcc: GOMP_task's copy function,
 * after the task-create event) and libomp recycles the blocks between tasks of both threads.
 * Neither the hand-over nor the reuse is a race (docs/access.md, "Full mode"). */
#include <omp.h>
#include <stdio.h>
int out[400];
int main(void) {
  #pragma omp parallel num_threads(2)
  #pragma omp single
  for (int t = 0; t < 400; t++) {
    int priv[8];
    for (int k = 0; k < 8; k++) priv[k] = t + k;
    #pragma omp task firstprivate(priv, t)
    {
      priv[0] += priv[7];
      for (int k = 1; k < 8; k++) priv[k] = priv[k - 1] * 2;
      out[t] = priv[7];
    }
  }
  long s = 0;
  for (int i = 0; i < 400; i++) s += out[i];
  printf("%ld\n", s);
  return 0;
}
