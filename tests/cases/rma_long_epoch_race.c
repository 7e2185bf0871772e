/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 38 38
 */
/* 100 000 MPI_Gets into one origin buffer in one lock_all epoch, never flushed (issue 22): the
 * gets race with each other at the origin (each writes the buffer while the others are in
 * flight), one pair of lines, and memory stays bounded by the distinct operations, not their
 * number (docs/rma.md, "Long epochs"): the case fails (exit 1) if rank 0's peak RSS grew by
 * more than 16 MiB from a warm-up epoch of 1 000 gets to the long one (each get held its
 * in-flight record until the unlock before operations shared records). */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>

long got;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

static long peak_kib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

int main(int argc, char **argv) {
  int rank;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 64; i++) x[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  long before = 0;
  for (int e = 0; e < 2; e++) {
    MPI_Win_lock_all(0, win);
    if (rank == 0)
      for (long i = 0, n = e ? 100000 : 1000; i < n; i++)
        MPI_Get(&got, 1, MPI_LONG, 1, (MPI_Aint)(i % 64), 1, MPI_LONG, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!e) before = peak_kib();
  }
  long grew = peak_kib() - before, worst;
  MPI_Allreduce(&grew, &worst, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  int bad = worst > 16 * 1024;
  if (rank == 0) printf("%speak RSS grew by %ld KiB over 100000 gets\n", bad ? "FAIL: " : "", worst);
  MPI_Win_free(&win);
  MPI_Finalize();
  return bad;
}
