/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 33 39
 * env: HRACE_OPTIONS=wire=always
 */
/* An MPI_Ibarrier in flight while messages pass: a non-blocking collective makes no base (a
 * rank may handle a message from a rank that finished it before finishing it itself), so
 * frames stay encoded against the blocking barrier before it, which every rank holds. Rank 0
 * puts into rank 1's window after its message went: the message does not order the put
 * before rank 1's load, and the Ibarrier, still in flight at rank 1, orders nothing yet. */
#include <mpi.h>
#include <stdio.h>

/* Orders ranks in real time without hrace seeing it (PMPI is not intercepted). */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0;
  MPI_Win win;
  MPI_Request rb;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Ibarrier(MPI_COMM_WORLD, &rb);
  if (rank == 0) {
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    MPI_Send(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    invisible_barrier();
  } else if (rank == 1) {
    MPI_Recv(&t, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    invisible_barrier();
    x = base[0];
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
  } else {
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    invisible_barrier();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, t);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
