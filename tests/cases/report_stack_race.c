/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 25 35
 * golden: report_stack
 */
/* What a report says about where things happened (issue 18 item 1): the put is issued three
 * calls deep (main -> exchange -> push) and its side of the race carries that caller chain,
 * as deep as the load's side (main -> cell); the window's memory names the MPI_Win_allocate
 * call that made it (inside make_grid); every frame has its column. Rank 1 loads, then the
 * ranks meet in PMPI_Barrier, which hrace does not see, then rank 0 puts: a race. The put's
 * record reaches rank 1 after the load whenever it is delivered (an unlock does not wait for
 * it), so the sides come in one order in every run: the put found the race. Twin:
 * report_stack_norace.c (MPI_Barrier). Its report is kept in tests/golden/report_stack.*. */
#include <mpi.h>
#include <stdio.h>

static __attribute__((noinline)) int *make_grid(MPI_Win *win) {
  int *base;
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
  return base;
}

static __attribute__((noinline)) void push(MPI_Win win, int *v) {
  MPI_Put(v, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
}

static __attribute__((noinline)) void exchange(MPI_Win win, int *v) {
  MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
  push(win, v);
  MPI_Win_unlock(1, win);
}

static __attribute__((noinline)) int cell(const int *g, int i) {
  return g[i];
}

int main(int argc, char **argv) {
  int rank, one = 1, seen = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int *grid = make_grid(&win);
  MPI_Win_set_name(win, "halo");
  for (int i = 0; i < 8; i++) grid[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    PMPI_Barrier(MPI_COMM_WORLD);
    exchange(win, &one);
  } else {
    seen = cell(grid, 2);
    PMPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d read %d\n", rank, seen);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
