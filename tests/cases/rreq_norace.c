/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of rreq_race. Loads of an MPI_Rput's origin buffer in flight are allowed; the
 * result of an MPI_Rget is used after MPI_Wait / a successful MPI_Test. Once the MPI_Rget's
 * request completed the target has been read (docs/rma.md, "Request-based operations"): a
 * barrier after the Wait orders the target's store after the get, although the origin's
 * lock_all epoch is still open (MPICH's own tests rely on this). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 0, flag = 0;
  int res[2] = { 0 }, src[2] = { 1, 2 }, res2[2];
  MPI_Win win;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Rget(res, 2, MPI_INT, 1, 0, 2, MPI_INT, win, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    x = res[1];
    MPI_Rput(src, 2, MPI_INT, 1, 2, 2, MPI_INT, win, &r);
    x += src[0];
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    src[0] = 3;
    MPI_Win_flush(1, win);
    MPI_Rget(res2, 1, MPI_INT, 1, 6, 1, MPI_INT, win, &r);
    while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    x += res2[0];
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) base[6] = 9;
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", x);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
