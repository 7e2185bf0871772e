/* hrace-test
 * ranks: 2
 * expect: no-race
 * env: OMPI_MCA_osc=ucx
 */
/* Distributed hash table by MPI_Compare_and_swap and MPI_Fetch_and_op in one lock_all epoch.
 * osc/ucx: Open MPI 4.1.4's osc/rdma segfaults in MPI_Compare_and_swap under lock_all here.
 * The kernel itself (bench/kernels/hist.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). */
#define KERN_NO_MAIN
#include "../../bench/kernels/hist.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "dht", "100", "2", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
