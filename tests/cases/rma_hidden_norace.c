/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O1
 */
/* Twin of rma_hidden_race, optimised: the same hidden accesses, each ordered (rank 1's after
 * the barrier that follows rank 0's flush, the origin buffer's after the flush that completes
 * the Get). */
#include <mpi.h>
#include <stdio.h>

__attribute__((noinline)) static void store_it(int *p, int v) { *p = v; }
__attribute__((noinline)) static int *slot(int *base, int i) { return base + i; }
__attribute__((noinline)) static void level4(int *p) { p[3] = 4; }
__attribute__((noinline)) static void level3(int *p) { level4(p); }
__attribute__((noinline)) static void level2(int *p) { level3(p); }
__attribute__((noinline)) static void level1(int *p) { level2(p); }

int main(int argc, char **argv) {
  int rank, *x, v[4] = {1, 2, 3, 4}, r = 0, s = 0;
  static int got;
  MPI_Win win;
  void (*volatile wr)(int *, int) = store_it;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = x[2] = x[3] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(&v[0], 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Put(&v[1], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Get(&r, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Accumulate(&v[3], 1, MPI_INT, 1, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_flush(1, win);
    MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    wr(&got, 5);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    wr(&x[0], 7);
    int *volatile alias = x + 1;
    s += *alias;
    *slot(x, 2) = 8;
    level1(x);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d %d\n", s, r, got);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
