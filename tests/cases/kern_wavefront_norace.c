/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Pipelined wavefront, one tiny PSCW epoch (one 8-byte put) per row; racy twin:
 * kern_wavefront_race.c.
 * The kernel itself (bench/kernels/wavefront.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). */
#define KERN_NO_MAIN
#include "../../bench/kernels/wavefront.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "24", "24", "3", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
