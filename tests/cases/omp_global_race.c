/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 16 16
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode: threads add to a plain global in a parallel loop (issue 16's `counter += 1.0`).
 * No MPI at all: the process is checked as one. */
#include <omp.h>
#include <stdio.h>
double counter;
int main(void) {
  #pragma omp parallel for schedule(static, 1) num_threads(2)
  for (int i = 0; i < 8; i++)
    counter += 1.0;
  printf("%f\n", counter);
  return 0;
}
