/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O2
 */
/* Loads and stores that clang 14's ThreadSanitizer pass leaves uninstrumented: it handles
 * accesses of 1, 2, 4, 8 and 16 bytes only. A loop storing p[2i] and p[2i+1] on one line is
 * vectorised at -O2 into 32-byte stores (<4 x double>, an interleaved group, even on SSE2), and
 * x86's long double is 10 bytes. hrace's pass (tools/hrace-pass, loaded by hrace-cc with clang
 * 14, also with HRACE_CC_HOIST=0) checks them as ranges. Rank 0 puts doubles 32-33 and long
 * double 1 of rank 1's window while rank 1 stores to doubles 0 .. 2n-1 and to long double k:
 * n = 20 and k = 1 in the race twin, n = 16 and k = 0 in the no-race twin. Without the pass
 * the race twin's races went unreported. Twin: access_wide_race.c. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

static struct { double d[64]; long double ld[4]; } area;   /* rank 1's window */
static volatile int n_rt, k_rt;

__attribute__((noinline)) static void both(double *p, int n) {
  for (int i = 0; i < n; i++) p[2 * i] = p[2 * i + 1] = i;
}

__attribute__((noinline)) static void set_ld(long double *q, int k, long double v) {
  q[k] = v;
}

int main(int argc, char **argv) {
  int rank;
  double src[2] = {0};
  long double lsrc = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(&area, sizeof area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 16;
  k_rt = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 2, MPI_DOUBLE, 1, 32 * sizeof(double), 2, MPI_DOUBLE, win);
    MPI_Put(&lsrc, 1, MPI_LONG_DOUBLE, 1, offsetof(typeof(area), ld) + sizeof(long double), 1,
            MPI_LONG_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    both(area.d, n_rt);
    set_ld(area.ld, k_rt, 2);
    printf("rank 1: %g\n", area.d[3]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
