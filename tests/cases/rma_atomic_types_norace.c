/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* Twin of rma_atomic_types_race: every concurrent pair is accumulate-family with the same
 * predefined element type: MPI_INT directly, through a contiguous, a vector and a resized
 * derived type (the element type is what counts), Fetch_and_op, Compare_and_swap,
 * Get_accumulate with MPI_NO_OP and MPI_REPLACE, and the request-based forms. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *x, one = 1, two[2] = {1, 1}, r = 0, s = 0;
  MPI_Win win;
  MPI_Datatype ctg, vec, vec1, res;
  MPI_Request rq[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0;
  MPI_Type_contiguous(2, MPI_INT, &ctg);
  MPI_Type_vector(2, 1, 1, MPI_INT, &vec);
  MPI_Type_vector(1, 1, 1, MPI_INT, &vec1);
  MPI_Type_create_resized(vec1, 0, 2 * sizeof(int), &res);
  MPI_Type_commit(&ctg);
  MPI_Type_commit(&vec);
  MPI_Type_commit(&res);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(two, 2, MPI_INT, 1, 2, 1, ctg, MPI_SUM, win);
    MPI_Accumulate(two, 2, MPI_INT, 1, 4, 2, res, MPI_MAX, win);
    MPI_Raccumulate(&one, 1, MPI_INT, 1, 8, 1, MPI_INT, MPI_SUM, win, &rq[0]);
    MPI_Fetch_and_op(&one, &r, MPI_INT, 1, 9, MPI_REPLACE, win);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(1, win);
  } else if (rank == 2) {
    int res1 = 0, res2 = 0, cmp = 0;
    MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_MAX, win);
    MPI_Accumulate(two, 2, MPI_INT, 1, 2, 1, vec, MPI_SUM, win);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &res1, 1, MPI_INT, 1, 4, 1, MPI_INT, MPI_NO_OP, win);
    MPI_Rget_accumulate(&one, 1, MPI_INT, &res2, 1, MPI_INT, 1, 8, 1, MPI_INT, MPI_REPLACE, win, &rq[1]);
    MPI_Compare_and_swap(&one, &cmp, &r, MPI_INT, 1, 9, win);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Win_flush(1, win);
    s += res1 + res2;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, r);
  MPI_Type_free(&ctg);
  MPI_Type_free(&vec);
  MPI_Type_free(&vec1);
  MPI_Type_free(&res);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
