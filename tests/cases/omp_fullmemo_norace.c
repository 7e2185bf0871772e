/* hrace-test
 * ranks: 0
 * expect: no-race
 * openmp: yes
 * cflags: -O0
 * env: OMP_NUM_THREADS=2
 * env: HRACE_CC_HOIST=0
 */
/* Twin of omp_fullmemo_race (full mode's per-code-address memo answer): the same reads, then
 * a barrier before thread 1's store, which orders it after them: no race. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 64
static double a[N];

int main(void) {
  double s = 0, q = 0;
  for (int i = 0; i < N; i++) a[i] = i;
  #pragma omp parallel num_threads(2) reduction(+ : s, q)
  {
    if (omp_get_thread_num() == 0) {
      for (int i = 1; i < N; i += 4) q += a[i];
      for (int i = 0; i < N; i++) s += a[i];
    }
    #pragma omp barrier
    if (omp_get_thread_num() == 1) {
      usleep(200000);
      a[3] = -1.0;
    }
  }
  printf("%f %f\n", s, q);
  return 0;
}
