/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 42 26
 */
/* Masked vector stores, which clang 14's ThreadSanitizer pass leaves uninstrumented: in the
 * AVX2 clone of copy_where() (target_clones: the CPU picks the clone at run time, both have the
 * same lines) the vectoriser turns the conditional store into llvm.masked.store of 4 doubles.
 * hrace's pass checks the lanes the mask sets, and only those. Rank 0 puts elements 32-39 of rank 1's window while rank 1 stores to the
 * elements i < 48 whose mask is set: i < 32 and, in the race twin, i = 35 (the vectorised loop
 * runs 16 elements per iteration, so 32-47 are its third; in the no-race twin the vector
 * stores over 32-47 have every lane off: a check of whole vectors would report them).
 * On a CPU without AVX2 the default clone runs, with the same verdict and lines.
 * Twin: access_masked_norace.c. */
#include <mpi.h>
#include <stdio.h>

static double area[64];   /* rank 1's window */
static int mask[64];
static volatile int n_rt;

__attribute__((target_clones("avx2", "default")))
void copy_where(double *restrict p, const int *restrict m, int n) {
  for (int i = 0; i < n; i++)
    if (m[i]) p[i] = 1.0;
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 48;
  for (int i = 0; i < 32; i++) mask[i] = 1;
  mask[35] = 1;   /* 0 in the no-race twin: already set */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    copy_where(area, mask, n_rt);
    printf("rank 1: %g\n", area[3]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
