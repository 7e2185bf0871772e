/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Matrix transpose, blocks fetched by MPI_Get with a strided target datatype between fences; racy
 * twin: kern_transpose_race.c.
 * The kernel itself (bench/kernels/transpose.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). */
#define KERN_NO_MAIN
#include "../../bench/kernels/transpose.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "get", "32", "3", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
