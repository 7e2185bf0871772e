/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -DHRACE_VIA_PCONTROL
 */
/* Twin of rma_poll_shared_race, annotated with a process signal / wait, written so that the
 * program needs no hrace at link time: with HRACE_VIA_PCONTROL the annotations are
 * MPI_Pcontrol calls, which hrace (preloaded) interprets and MPI alone ignores. */
#include <hrace.h>
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
    hrace_process_signal(1, 7);
    atomic_store((_Atomic int *)&seg[0], 1);
  } else {
    while (!atomic_load((_Atomic int *)&mine[0]))
      ;
    hrace_process_wait(0, 7);
    s = mine[1];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
