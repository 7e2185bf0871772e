/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The datatype layout cache (src/rma/type.c): a vector type used four times (the later ones
 * from the cache), with count 1 and 2 (one cached layout per count), then freed, and an
 * indexed type made in its place (MPI may hand out the freed handle again: the cache entry
 * went with MPI_Type_free, so the new type's own layout is used). Rank 2 puts into the
 * vector's holes (1, 9, 17, 24: not accessed; the count-2 put covers 16..22 even and 23..29
 * odd) and to element 34, between the indexed type's elements: no race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, v[16];
  MPI_Win win;
  MPI_Datatype a, b;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 64; i++) x[i] = 0;
  for (int i = 0; i < 16; i++) v[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Type_vector(4, 1, 2, MPI_INT, &a);
    MPI_Type_commit(&a);
    MPI_Put(v, 4, MPI_INT, 1, 0, 1, a, win);
    MPI_Put(v, 4, MPI_INT, 1, 8, 1, a, win);
    MPI_Put(v, 8, MPI_INT, 1, 16, 2, a, win);
    MPI_Put(v, 4, MPI_INT, 1, 40, 1, a, win);
    MPI_Type_free(&a);
    int bl[2] = {1, 1}, dsp[2] = {1, 3};
    MPI_Type_indexed(2, bl, dsp, MPI_INT, &b);
    MPI_Type_commit(&b);
    MPI_Put(v, 2, MPI_INT, 1, 32, 1, b, win);
    MPI_Type_free(&b);
    MPI_Win_flush(1, win);
  } else if (rank == 2) {
    MPI_Put(&v[9], 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Put(&v[9], 1, MPI_INT, 1, 9, 1, MPI_INT, win);
    MPI_Put(&v[9], 1, MPI_INT, 1, 17, 1, MPI_INT, win);
    MPI_Put(&v[9], 1, MPI_INT, 1, 24, 1, MPI_INT, win);
    MPI_Put(&v[9], 1, MPI_INT, 1, 34, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", v[0]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
