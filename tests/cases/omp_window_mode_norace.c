/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_OPTIONS=mode=window
 */
/* mode=window: only window memory and RMA buffers are checked, as before full mode; the race
 * of omp_global_race on a plain global is then not looked for (the launcher says so). */
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
