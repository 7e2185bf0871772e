/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 28
 * pair: 32 31
 * pair: 35 34
 * pair: 43 37
 */
/* Request-based RMA (MPI-3.1 Sec. 11.3.5): before the request completes, the result buffer of
 * an MPI_Rget may not be read and the origin buffer of an MPI_Rput / MPI_Raccumulate may not
 * be written (stack buffers, checked at every optimisation level). A completed MPI_Rget orders
 * nothing by itself: the target's store that no synchronisation orders after it races. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 0;
  int res[2] = { 0 }, src[2] = { 1, 2 }, acc[2] = { 1, 1 }, res2[2];
  MPI_Win win;
  MPI_Request r;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Rget(res, 2, MPI_INT, 1, 0, 2, MPI_INT, win, &r); /* RGET */
    x = res[1]; /* RGET_LOAD */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Rput(src, 2, MPI_INT, 1, 2, 2, MPI_INT, win, &r); /* RPUT */
    src[0] = 3; /* RPUT_STORE */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Raccumulate(acc, 2, MPI_INT, 1, 4, 2, MPI_INT, MPI_SUM, win, &r); /* RACC */
    acc[1] = 3; /* RACC_STORE */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Rget(res2, 1, MPI_INT, 1, 6, 1, MPI_INT, win, &r); /* RGET2 */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else {
    PMPI_Barrier(MPI_COMM_WORLD);   /* invisible to hrace: orders nothing it can see */
  }
  if (rank == 0) PMPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) base[6] = 9; /* T_STORE */
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", x, res2[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
