/* hrace-test
 * ranks: 17
 * expect: no-race
 */
/* Seventeen ranks: a dense clock (68 bytes) no longer fits a frame's 64 inline bytes, so with
 * the default options (wire=epoch) every frame carries its clock encoded against the last
 * world collective. Rank 0 puts into the last rank's window, then a token goes round the ranks
 * in order; each hop's clock knows one rank more since the allreduces (so the chain's last
 * frames need more bytes than the first). The last rank loads after the token came: the chain
 * orders the put before the load. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, *base, v = 42, x = -1, t = 0;
  double s = 1, sum;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  for (int i = 0; i < 3; i++) MPI_Allreduce(&s, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int last = size - 1;
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, last, 0, win);
    MPI_Put(&v, 1, MPI_INT, last, 0, 1, MPI_INT, win);
    MPI_Win_unlock(last, win);
    MPI_Send(&t, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&t, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank < last) MPI_Send(&t, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
    else x = base[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == last) printf("%d %g\n", x, sum);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
