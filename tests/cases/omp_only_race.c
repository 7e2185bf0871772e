/* hrace-test
 * ranks: 0
 * expect: race
 * pair: 19 19
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* An OpenMP program that never calls MPI_Init, run as `hrace run -- ./prog` (no mpirun): it
 * is checked as one process (issue 22 item 6). Threads sum into a shared total without
 * synchronisation. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  double *v = malloc(100 * sizeof *v), total = 0;
  for (int i = 0; i < 100; i++) v[i] = i;
  #pragma omp parallel for num_threads(2) schedule(static, 1) shared(total)
  for (int i = 0; i < 100; i++)
    total += v[i];
  printf("%f\n", total);
  free(v);
  return 0;
}
