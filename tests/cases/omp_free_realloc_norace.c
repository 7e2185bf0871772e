/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Full mode forgets a heap block's accesses when the block is handed out again: thread 0
 * writes a block and frees it, then thread 1 allocates one of the same size (blocks this large
 * are mapped and unmapped by glibc, so the address usually comes back) and writes it. Nothing
 * orders the two threads (the flag is a C11 atomic, which orders nothing for hrace), yet the
 * second owner's writes race with nothing. Then small blocks go round between the threads
 * through realloc and free. */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#define BIG (48u << 20)
_Atomic int freed;
int main(void) {
  char *seen[2] = { 0, 0 };
  #pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    if (me == 0) {
      char *p = malloc(BIG);
      p[0] = 1;
      p[BIG / 2] = 2;
      seen[0] = p;
      free(p);
      atomic_store(&freed, 1);
    } else {
      while (!atomic_load(&freed)) {}
      char *q = malloc(BIG);
      q[0] = 3;
      q[BIG / 2] = 4;
      seen[1] = q;
      free(q);
    }
    for (int i = 0; i < 100; i++) {
      int *r = malloc(16 * sizeof *r);
      r[0] = i;
      r = realloc(r, 64 * sizeof *r);
      r[63] = r[0];
      free(r);
    }
  }
  printf("%s\n", seen[0] == seen[1] ? "reused" : "not reused");
  return 0;
}
