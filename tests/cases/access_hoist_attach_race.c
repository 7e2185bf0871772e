/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 41 20
 */
/* Loop hoisting (docs/access.md). A dynamic window: rank 1 takes the pointer p (malloc) and only then attaches the memory
 * with MPI_Win_attach; its loop stores to p[0 .. n-1] while rank 0's put into p[32 .. 39] is in
 * flight: n = 33 (race), 32 (no race).
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_attach_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int n_rt;

__attribute__((noinline)) static void fill(double *p, int n) {
  for (int i = 0; i < n; i++) p[i] = i; /* hoisted */
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Aint base = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  double *p = calloc(64, sizeof(double));
  n_rt = 33;
  if (rank == 1) {
    MPI_Win_attach(win, p, 64 * sizeof(double));
    MPI_Get_address(p, &base);
  }
  MPI_Bcast(&base, 1, MPI_AINT, 1, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, base + 32 * sizeof(double), 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    fill(p, n_rt);
    printf("rank 1: %g\n", p[3]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) MPI_Win_detach(win, p);
  MPI_Win_free(&win);
  free(p);
  MPI_Finalize();
  return 0;
}
