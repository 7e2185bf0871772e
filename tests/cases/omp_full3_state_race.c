/* hrace-test
 * ranks: 0
 * expect: race
 * pair: 44 44
 * openmp: yes
 * env: OMP_NUM_THREADS=8
 * env: HRACE_CC_HOIST=0
 */
/* Full mode's one-word thread state (access/thread.h, core/thread.h: `state`, `unusual`;
 * docs/access.md, "Single accesses: one pass from the callback"): each thread calls the
 * combiner add2() on its own data first (its descriptor and the memo's answer cached for its
 * code addresses in the segment), then in a user-defined reduction, where libomp calls it
 * inside the reduction scope or a barrier on the shared result under its own synchronisation:
 * those accesses must be skipped (a state word that missed the flags would check them and
 * report a race on `tot` that does not exist). After the region's loop the state is ordinary
 * again, and both threads update `x` with no synchronisation: that race must be reported.
 * Twin: omp_full3_state_norace (the update inside a critical section). */
/* A team of 8, so that libomp combines in a tree inside its barrier (clang); with the
 * flags' test dropped from full mode's check the clang builds of both twins fail. */
#include <omp.h>
#include <stdio.h>

typedef struct { double v[4]; } vec_t;
static void add2(vec_t *out, const vec_t *in) {
  for (int j = 0; j < 4; j++) out->v[j] = out->v[j] + in->v[j];
}
#pragma omp declare reduction(vadd : vec_t : add2(&omp_out, &omp_in)) \
    initializer(omp_priv = (vec_t){ { 0, 0, 0, 0 } })

#define N 4096
static vec_t a[N];
int main(void) {
  for (int i = 0; i < N; i++) a[i] = (vec_t){ { i, 1, 2, 3 } };
  vec_t tot = { { 0, 0, 0, 0 } };
  double x = 0;
  #pragma omp parallel num_threads(8)
  {
    vec_t mine = { { 0, 0, 0, 0 } };
    for (int r = 0; r < 20; r++) {
      for (int i = 0; i < 8; i++) add2(&mine, &a[i]);
      #pragma omp for reduction(vadd : tot) schedule(static)
      for (int i = 0; i < N; i++) add2(&tot, &a[i]);
    }
    x = x + mine.v[0];
  }
  printf("%f %f\n", tot.v[0], x);
  return 0;
}
