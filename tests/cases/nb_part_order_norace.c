/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: mpich
 */
/* Two partitioned requests of one (peer, tag) pair, active at once and readied out of order:
 * MPI matches them in the order they were initialised (MPI-4.0 Sec. 4.2.1), A with A and B with
 * B, so rank 1's MPI_Wait on A follows everything rank 0 did before readying A, the flushed
 * MPI_Put into rank 1's window included, and rank 1's load after that wait is ordered after
 * the put. (hrace once sent each round's clock on one tag per pair, so B's clock, readied
 * first and older than the put, was taken for A's, and this load was reported.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, a = 0, b = 0, one = 1, x = 0, *w;
  MPI_Request ra, rb;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
  *w = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Psend_init(&a, 1, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    MPI_Psend_init(&b, 1, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rb);
    MPI_Win_lock_all(0, win);
    MPI_Start(&ra);
    MPI_Start(&rb);
    MPI_Pready(0, rb);
    MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
    MPI_Pready(0, ra);
    MPI_Wait(&ra, MPI_STATUS_IGNORE);
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
  } else {
    MPI_Precv_init(&a, 1, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    MPI_Precv_init(&b, 1, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rb);
    MPI_Start(&ra);
    MPI_Start(&rb);
    MPI_Wait(&ra, MPI_STATUS_IGNORE);
    x = *w;
    MPI_Wait(&rb, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x + a + b);
  MPI_Request_free(&ra);
  MPI_Request_free(&rb);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
