/* The simulator's stencil with an allreduce per iteration, as a real MPI program (bench/sim/
 * wire.sh, bench/README.md "Clocks at scale: real runs"): a ring of ranks, each iteration two
 * Sendrecv of 32 bytes with its neighbours, then an MPI_Allreduce of one double every EVERY
 * iterations.   usage: halo [ITERS [EVERY]]   (default 20 1) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, p, it = argc > 1 ? atoi(argv[1]) : 20, every = argc > 2 ? atoi(argv[2]) : 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double a[4] = {r, r, r, r}, b[4], s = 0, t;
  int up = (r + p - 1) % p, dn = (r + 1) % p;
  for (int i = 0; i < it; i++) {
    MPI_Sendrecv(a, 4, MPI_DOUBLE, up, 0, b, 4, MPI_DOUBLE, dn, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 4, MPI_DOUBLE, dn, 1, b, 4, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    s += b[0];
    if ((i + 1) % every == 0) { MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); s = t / p; }
  }
  if (r == 0) printf("%g\n", s);
  MPI_Finalize();
  return 0;
}
