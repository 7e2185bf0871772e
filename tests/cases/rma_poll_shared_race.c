/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 26 31
 */
/* A hand-made handoff through a shared-memory window: rank 0 writes the data into rank 1's
 * segment, then raises a flag there with a C11 atomic store; rank 1 spins on an atomic load of
 * the flag and reads the data. The atomics don't race each other, but they order nothing for
 * hrace (it does not follow values), so the data races. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *mine, *seg, s = 0;
  MPI_Aint size;
  int du;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 1, &size, &du, &seg);
  mine[0] = mine[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    seg[1] = 42;
    atomic_store((_Atomic int *)&seg[0], 1);
  } else {
    while (!atomic_load((_Atomic int *)&mine[0]))
      ;
    s = mine[1];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
