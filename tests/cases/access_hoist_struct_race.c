/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -O2
 * pair: 38 23
 */
/* Loop hoisting (docs/access.md). A pointer to window memory stored in a struct that a function receives: a read loop of
 * n elements (a sum) over it while rank 0's put of elements 32-39 is in flight: n = 40 (race),
 * 32 (no race).
 * Built with -O2, where hrace-cc's pass hoists; the trailing comments say what the pass
 * must ("hoisted") and must not ("not hoisted") turn into a range check (tests/tools/test_hoist.py).
 * Twin: access_hoist_struct_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double area[64];   /* rank 1's window */
static volatile int n_rt;  /* trip counts are runtime values */
struct view { long n; const double *p; };

__attribute__((noinline)) static double sum(const struct view *v) {
  double s = 0;
  for (long i = 0; i < v->n; i++) s += v->p[i]; /* hoisted */
  return s;
}

int main(int argc, char **argv) {
  int rank;
  double src[8] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(area, sizeof area, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  n_rt = 40;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 8, MPI_DOUBLE, 1, 32, 8, MPI_DOUBLE, win);
    MPI_Win_unlock(1, win);
  } else {
    struct view v = {n_rt, area};
    printf("rank 1: %g\n", sum(&v));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
