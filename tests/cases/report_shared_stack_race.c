/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 23 19
 * golden: report_shared_stack
 */
/* A "local" race between the processes of a shared-memory window (issue 18 item 1): rank 1
 * stores into rank 0's segment two calls deep (main -> relax -> set), through
 * MPI_Win_shared_query's pointer, while rank 0 loads its own segment one call deep
 * (main -> cell). The store travels to rank 0 in a forwarded batch; its side of the race must
 * carry its caller chain as deep as the load's side, columns included. The ranks are ordered
 * with PMPI_Barrier, which hrace does not see: a race. (The second one keeps the store's
 * batch, sent at rank 1's next MPI call, from arriving before the load: one order of sides.) Twin: report_shared_stack_norace.c
 * (MPI_Barrier). Its report is kept in tests/golden/report_shared_stack.*. */
#include <mpi.h>
#include <stdio.h>

static __attribute__((noinline)) int cell(const int *g, int i) {
  return g[i];
}

static __attribute__((noinline)) void set(int *g, int i, int v) {
  g[i] = v;
}

static __attribute__((noinline)) void relax(int *g, int v) {
  set(g, 1, v);
}

int main(int argc, char **argv) {
  int rank, *mine, *peer, du, seen = 0;
  MPI_Aint size;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_set_name(win, "cells");
  MPI_Win_shared_query(win, 0, &size, &du, &peer);
  for (int i = 0; i < 4; i++) mine[i] = 0;
  MPI_Win_lock_all(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    relax(peer, 7);
    PMPI_Barrier(MPI_COMM_WORLD);
    PMPI_Barrier(MPI_COMM_WORLD);
  } else {
    PMPI_Barrier(MPI_COMM_WORLD);
    seen = cell(mine, 1);
    PMPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_unlock_all(win);
  printf("rank %d read %d\n", rank, seen);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
