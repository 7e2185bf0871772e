/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* 2-D stencil, halo rows by MPI_Put in post/start/complete/wait epochs.
 * The kernel itself (bench/kernels/stencil.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). */
#define KERN_NO_MAIN
#include "../../bench/kernels/stencil.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "pscw", "64", "6", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
