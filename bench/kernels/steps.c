/* Time steps the way miniMD-like codes write them: an OpenMP `parallel for` over the local
 * array each step (the team forms and ends every step), then a fence epoch with one put to the
 * neighbour, into one of two slots after the array: the slot a step's put fills is read in the
 * next epoch, while the neighbour's next put fills the other one. The long-run memory kernel of bench/kernels/memory.sh (issue 21 item 4): each step
 * makes new access descriptors on every thread.
 *   usage: steps N STEPS        (threads: OMP_NUM_THREADS)
 * Verification: every element ends at the closed form of its recurrence. */
#include "kern.h"
#include <math.h>

int KERN_MAIN(int argc, char **argv)
{
  int rank, p, got;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &got);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int n = kern_arg(argc, argv, 1, 2048), steps = kern_arg(argc, argv, 2, 100);
  double *a, in = 0;
  MPI_Win win;
  MPI_Win_allocate((size_t)(n + 2) * sizeof(double), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &a, &win);
  for (int i = 0; i < n + 2; i++) a[i] = 0;
  MPI_Win_fence(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) a[i] = 0.5 * a[i] + 1.0;
    MPI_Put(&a[0], 1, MPI_DOUBLE, (rank + 1) % p, n + s % 2, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    in += a[n + s % 2];
  }
  double t = MPI_Wtime() - t0;
  double want = 2.0 * (1.0 - pow(0.5, steps));   /* a[i] after `steps` steps */
  int ok = 1;
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - want) > 1e-12) ok = 0;
  int rc = kern_finish("steps", "fence", (long)n, steps, t, ok && in > 0);
  MPI_Win_free(&win);
  MPI_Finalize();
  return rc;
}
