/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Twin of rma_shared_race: the same loads, stores and put, separated by barriers (and the
 * put completed by its unlock before the barrier that precedes rank 1's load). Rank 1 writes
 * rank 0's segment through pointer arithmetic on its own base, which MPI allows for a
 * contiguous shared window: hrace tracks every segment, not just queried ones. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *mine, *x, s = 0, v = 9;
  MPI_Aint size;
  int du;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 0, &size, &du, &x);
  mine[0] = mine[1] = mine[2] = mine[3] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    int *zero = mine - 4;   /* rank 0's segment, just below ours */
    zero[0] = 1;
    zero[1] = 1;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) s += mine[0];
  if (rank == 2) {
    x[1] = 2;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) s += x[2] + x[1];
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
