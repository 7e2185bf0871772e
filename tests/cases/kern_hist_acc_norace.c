/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Distributed histogram by MPI_Accumulate in one lock_all epoch; racy twin: kern_hist_race.c.
 * The kernel itself (bench/kernels/hist.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). */
#define KERN_NO_MAIN
#include "../../bench/kernels/hist.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "acc", "400", "2", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
