/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 46 52
 */
/* Racy twin of kern_wavefront_norace.c: the pipelined wavefront of bench/kernels/wavefront.c,
 * compact, with each row's MPI_Win_wait moved after the row's compute. The left neighbour's
 * one-value put into this rank's ghost column (in its start / complete epoch) is then not
 * ordered before the load of that ghost value: the row is computed between MPI_Win_post and
 * MPI_Win_wait. -DKEEP_SYNC waits before the compute again: hrace must then report nothing
 * (the case would fail). */
#include <mpi.h>
#include <string.h>

enum { M = 24, W = 8, LD = W + 1 }; /* rows, columns per rank, row length with the ghost */

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double *A;
  MPI_Win win;
  MPI_Win_allocate(M * LD * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &A,
                   &win);
  memset(A, 0, M * LD * sizeof(double));
  for (int c = 0; c <= W; c++) A[c] = rank * W + c - 1;
  if (rank == 0)
    for (int i = 0; i < M; i++) A[i * LD + 1] = i;
  MPI_Group world, left, right;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int l = rank - 1, r = rank + 1, c0 = rank == 0 ? 2 : 1;
  MPI_Group_incl(world, rank > 0, &l, &left);
  MPI_Group_incl(world, rank < p - 1, &r, &right);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 1; i < M; i++) {
    double *row = A + i * LD, *prev = row - LD;
    if (rank > 0) {
      MPI_Win_post(left, 0, win);
#ifdef KEEP_SYNC
      MPI_Win_wait(win);
#endif
    }
    for (int c = c0; c <= W; c++)
      row[c] = prev[c] + row[c - 1] - prev[c - 1];
#ifndef KEEP_SYNC
    if (rank > 0) MPI_Win_wait(win);
#endif
    if (rank < p - 1) {
      MPI_Win_start(right, 0, win);
      MPI_Put(&row[W], 1, MPI_DOUBLE, rank + 1, (MPI_Aint)i * LD, 1, MPI_DOUBLE, win);
      MPI_Win_complete(win);
    }
  }
  MPI_Group_free(&left);
  MPI_Group_free(&right);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
