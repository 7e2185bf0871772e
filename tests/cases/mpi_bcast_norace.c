/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* MPI_Bcast from rank 0 (one-to-all) is the only synchronisation between rank 0's put (lock,
 * put, unlock) and rank 1's load of the same location: ordered, no race. */
#include <mpi.h>
#include <stdio.h>

/* Orders ranks in real time without hrace seeing it (PMPI is not intercepted). */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0, u = 0;
  MPI_Win win;
  MPI_Request req;
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Bcast(&t, 1, MPI_INT, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Bcast(&t, 1, MPI_INT, 0, MPI_COMM_WORLD);
    x = base[0];
  } else {
    MPI_Bcast(&t, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d %d\n", x, t, u);
  MPI_Win_free(&win);

  MPI_Finalize();
  return 0;
}
