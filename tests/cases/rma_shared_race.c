/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 31 29
 * pair: 32 35
 * pair: 33 36
 */
/* MPI_Win_allocate_shared: every rank reaches the others' segments with plain loads and
 * stores (through MPI_Win_shared_query's pointer, or its own base plus an offset). Rank 1
 * stores into rank 0's segment while rank 0 loads it (31 / 29); ranks 1 and 2 both
 * store into rank 0's x[1]; rank 1 loads rank 0's x[2] while rank 2 puts there. Nothing
 * orders them: the barrier that starts them is also what ends them. */
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
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    s += mine[0];
  } else if (rank == 1) {
    x[0] = 1;
    x[1] = 1;
    s += x[2];
  } else {
    x[1] = 2;
    MPI_Put(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, win);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
