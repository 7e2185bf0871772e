/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A target datatype whose blocks come in decreasing order (MPI_Type_indexed with displacements
 * {8, 2}): hrace flattens it through MPI_Pack and must sort the bytes before merging them into
 * ranges (src/rma/type.c, flatten; types in order skip the sort). Rank 0 puts ints 8-9 and 2-3
 * of rank 1's window; rank 1 concurrently loads element 5, a hole between the blocks: no race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[4] = {1, 2, 3, 4}, s = 0;
  MPI_Win win;
  MPI_Datatype down;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0;
  int bl[2] = {2, 2}, dsp[2] = {8, 2};
  MPI_Type_indexed(2, bl, dsp, MPI_INT, &down);
  MPI_Type_commit(&down);
  MPI_Win_fence(0, win);
  if (rank == 0) {
    MPI_Put(v, 4, MPI_INT, 1, 0, 1, down, win);
  } else {
    s = x[5];
  }
  MPI_Win_fence(0, win);
  printf("%d\n", s);
  MPI_Type_free(&down);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
