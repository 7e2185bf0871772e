/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Hybrid stencil: every thread puts its columns of the halo rows between fences that one thread
 * calls (MPI_THREAD_MULTIPLE).
 * The kernel itself (bench/kernels/hybrid.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). */
#define KERN_NO_MAIN
#include "../../bench/kernels/hybrid.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "multiple", "64", "4", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
