/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 49 57
 * pair: 50 58
 * pair: 51 59
 * pair: 52 62
 * pair: 53 54
 */
/* Derived datatypes whose data overlaps another access, at the target and at the origin:
 * an indexed type (blocks at 0 and 4..5) against a put to element 5; a struct of two ints at
 * byte offsets 0 and 12, against a put to element 3 of that region; a 2x2 subarray of a 4x4
 * array against a put to its element (2,2); a resized vector whose second element lands on a
 * store of the target; and a Get into an origin buffer with a strided type, against a store to
 * one of its data elements. */
#include <mpi.h>
#include <stdio.h>

int buf[8];   /* global: clang 14 leaves stores to a stack array's elements uninstrumented */

int main(int argc, char **argv) {
  int rank, *x, v[16], s = 0;
  MPI_Win win;
  MPI_Datatype idx, strct, sub, vec1, res, strided;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 64; i++) x[i] = 0;
  for (int i = 0; i < 16; i++) v[i] = i;
  int bl[2] = {1, 2}, dsp[2] = {0, 4};
  MPI_Type_indexed(2, bl, dsp, MPI_INT, &idx);
  int sbl[2] = {1, 1};
  MPI_Aint sdsp[2] = {0, 12};
  MPI_Datatype sty[2] = {MPI_INT, MPI_INT};
  MPI_Type_create_struct(2, sbl, sdsp, sty, &strct);
  int sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {1, 1};
  MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
  MPI_Type_vector(1, 1, 1, MPI_INT, &vec1);
  MPI_Type_create_resized(vec1, 0, 3 * sizeof(int), &res);
  MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&idx);
  MPI_Type_commit(&strct);
  MPI_Type_commit(&sub);
  MPI_Type_commit(&res);
  MPI_Type_commit(&strided);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(v, 3, MPI_INT, 1, 0, 1, idx, win);
    MPI_Put(v, 2, MPI_INT, 1, 8, 1, strct, win);
    MPI_Put(v, 4, MPI_INT, 1, 16, 1, sub, win);
    MPI_Put(v, 2, MPI_INT, 1, 40, 2, res, win);
    MPI_Get(buf, 1, strided, 1, 48, 4, MPI_INT, win);
    buf[6] = 1;
    MPI_Win_flush(1, win);
  } else if (rank == 2) {
    MPI_Put(&v[9], 1, MPI_INT, 1, 5, 1, MPI_INT, win);
    MPI_Put(&v[9], 1, MPI_INT, 1, 11, 1, MPI_INT, win);
    MPI_Put(&v[9], 1, MPI_INT, 1, 26, 1, MPI_INT, win);
    MPI_Win_flush(1, win);
  } else {
    x[43] = 9;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, buf[0]);
  MPI_Type_free(&idx);
  MPI_Type_free(&strct);
  MPI_Type_free(&sub);
  MPI_Type_free(&vec1);
  MPI_Type_free(&res);
  MPI_Type_free(&strided);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
