/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: openmpi
 */
/* Open MPI only: MPICH 4.0.2 itself grows by ~187 MiB over these 200 000 un-flushed
 * accumulates (plain mpicc.mpich, no hrace), so the bound below cannot tell hrace's part there.
 * Memory of a long passive-target epoch (docs/rma.md, "Long epochs"): each rank issues 200 000
 * MPI_Accumulates to the other in one lock_all epoch, never flushed, from one origin buffer,
 * at one site, into 1024 bins. hrace keeps one record per (origin thread, site, kind) at the
 * target and one per equal operation in flight at the origin, so the peak RSS must not grow
 * with the number of operations: before, each one held about 440 bytes until the unlock
 * (85 MiB here). The case fails (exit 1) if the peak RSS grew by more than 16 MiB from a
 * warm-up epoch of 2 000 accumulates to the long one. Peak RSS does not depend on timing. */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>

#define BINS 1024

static long peak_kib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static void epoch(MPI_Win win, int peer, long n) {
  static const long one = 1;
  MPI_Win_lock_all(0, win);
  for (long i = 0; i < n; i++)
    MPI_Accumulate(&one, 1, MPI_LONG, peer, (MPI_Aint)((i * 7919) % BINS), 1, MPI_LONG, MPI_SUM,
                   win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  int rank, size;
  long *bins;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(BINS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &bins, &win);
  for (int i = 0; i < BINS; i++) bins[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int peer = (rank + 1) % size;
  epoch(win, peer, 2000);
  long before = peak_kib();
  epoch(win, peer, 200000);
  long grew = peak_kib() - before, worst;
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  long sum = 0;
  for (int i = 0; i < BINS; i++) sum += bins[i];
  MPI_Win_unlock(rank, win);
  MPI_Allreduce(&grew, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("peak RSS grew by %ld KiB over 200000 accumulates\n", worst);
  int bad = sum != 202000 || worst > 16 * 1024;
  if (bad) printf("FAIL: rank %d sum %ld, peak RSS grew by %ld KiB\n", rank, sum, worst);
  MPI_Win_free(&win);
  MPI_Finalize();
  return bad;
}
