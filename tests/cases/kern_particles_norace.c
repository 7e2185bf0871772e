/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: openmpi
 */
/* Particles with a random neighbour list, ghosts pushed with indexed-datatype puts under lock_all
 * + flush_all + barrier; racy twin: kern_particles_race.c.
 * The kernel itself (bench/kernels/particles.c, bench/README.md "Application kernels") at a small
 * size, unchanged: a correct program that hrace must pass, and whose numbers it checks (a
 * non-zero exit fails the case too). Open MPI only: on MPICH 4.0.2 (ch4:ucx) the kernel computes a
 * wrong sum without hrace too (indexed-block origin datatypes into MPI_Win_allocate memory). */
#define KERN_NO_MAIN
#include "../../bench/kernels/particles.c"

int main(int argc, char **argv)
{
  char *args[] = {argv[0], "500", "6", NULL};
  (void)argc;
  return kern_main((int)(sizeof args / sizeof *args) - 1, args);
}
