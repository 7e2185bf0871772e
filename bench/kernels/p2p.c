/* Time steps with no RMA at all: an OpenMP `parallel for` over the local array each step (the
 * team forms and ends every step), then a point-to-point exchange of the first element with the
 * two neighbours (MPI_Sendrecv), added into the slot after the array. The long-run memory kernel
 * of bench/kernels/memory.sh for a program that makes no RMA call (issue 21 item 4): full mode
 * runs (two threads), each step makes new access descriptors on every thread, and before the
 * sweep points in OpenMP barriers nothing gave them back.
 *   usage: p2p N STEPS        (threads: OMP_NUM_THREADS)
 * Verification: every element ends at the closed form of its recurrence, and the slot holds the
 * sum of what the neighbour sent. */
#include "kern.h"
#include <math.h>

int KERN_MAIN(int argc, char **argv)
{
  int rank, p, got;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &got);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int n = kern_arg(argc, argv, 1, 2048), steps = kern_arg(argc, argv, 2, 100);
  double *a = malloc((size_t)(n + 1) * sizeof *a), want_in = 0;
  if (!a) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < n + 1; i++) a[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) a[i] = 0.5 * a[i] + 1.0;
    double out = a[0], in = 0;
    MPI_Sendrecv(&out, 1, MPI_DOUBLE, (rank + 1) % p, 0, &in, 1, MPI_DOUBLE, (rank + p - 1) % p,
                 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    a[n] += in;
    want_in += 2.0 * (1.0 - pow(0.5, s + 1));
  }
  double t = MPI_Wtime() - t0;
  double want = 2.0 * (1.0 - pow(0.5, steps));   /* a[i] after `steps` steps */
  int ok = fabs(a[n] - want_in) <= 1e-9 * (steps + 1);
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - want) > 1e-12) ok = 0;
  int rc = kern_finish("p2p", "sendrecv", (long)n, steps, t, ok);
  free(a);
  MPI_Finalize();
  return rc;
}
