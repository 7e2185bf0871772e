/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A passive target that computes and calls nothing while the origin locks, puts and unlocks:
 * no thread of rank 1 looks at its shared-memory rings, so every message to it (the lock
 * request, the records, the unlock, the ping before the origin's send) must ring the doorbell
 * and wake its progress thread (docs/design.md, "hrace's own traffic"); without the doorbell the
 * origin waits forever for its lock token. Twin of shm_idle_race: rank 1 reads x after the
 * receive, which the origin's send orders after its unlocks. */
#include <mpi.h>

int val = 7, got, token;   /* globals: clang 14 leaves stores to stack variables uninstrumented */
double sink;

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int it = 0; it < 20; it++) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
      MPI_Put(&val, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
      MPI_Win_unlock(1, win);
    }
    MPI_Send(&val, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    double s = 0;
    for (long i = 0; i < 60000000; i++) s += (double)(i & 7) * 0.5;
    sink = s;
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    got = x[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
