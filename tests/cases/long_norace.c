/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of long_race.c: rank 0's first store is ordered before rank 1's put (a send after the
 * store, received before the put), and the 40 000 epochs between touch another window. Were
 * the store's descriptor given back while win[0]'s cell holds it, its id would come to name a
 * later store of rank 0, which nothing orders before the put: a false race. */
#include <mpi.h>

/* Orders the ranks in real time without synchronisation hrace sees. */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

enum { EPOCHS = 40000 };

int main(int argc, char **argv) {
  int rank, token = 0;
  double *mem, *loop, one = 1.0;
  MPI_Win win, other;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &loop,
                   &other);
  if (rank == 0) {
    mem[0] = 2.0;
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    for (int i = 0; i < EPOCHS; i++) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, other);
      loop[8 + i % 8] = i;
      loop[16 + i % 8] += 1.0;
      MPI_Win_unlock(0, other);
    }
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  invisible_barrier();
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&other);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
