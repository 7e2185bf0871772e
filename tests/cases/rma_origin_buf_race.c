/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 37 39
 * pair: 40 41
 * pair: 42 43
 * pair: 44 45
 * pair: 46 47
 * pair: 48 49
 * pair: 50 51
 * pair: 52 53
 * pair: 54 55
 * pair: 58 59
 * pair: 61 62
 */
/* Origin buffers in flight (issue to local completion) against the origin's own loads and
 * stores and against its other operations. Not reported: a load of a Put's origin buffer
 * (38: both read) and two Puts from one buffer (64 / 65). */
#include <mpi.h>
#include <stdio.h>

int d[2] = {4, 5};   /* global: clang 14 leaves stores to a stack array's elements uninstrumented */

int main(int argc, char **argv) {
  int rank, *x, s = 0;
  int a = 1, b = 2, c = 3, res = 0, fres = 0, cmp = 0, cres = 0, e = 6, f = 7,
      g = 0, h = 8, k = 9;
  MPI_Win win;
  MPI_Request rq[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Put(&a, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    s += a;
    a = 10;
    MPI_Get(&b, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    s += b;
    MPI_Get(&c, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    c = 11;
    MPI_Accumulate(d, 2, MPI_INT, 1, 3, 2, MPI_INT, MPI_SUM, win);
    d[1] = 12;
    MPI_Get_accumulate(&e, 1, MPI_INT, &res, 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_SUM, win);
    s += res;
    MPI_Fetch_and_op(&f, &fres, MPI_INT, 1, 6, MPI_SUM, win);
    fres = 13;
    MPI_Compare_and_swap(&h, &cmp, &cres, MPI_INT, 1, 7, win);
    cmp = 14;
    MPI_Rput(&k, 1, MPI_INT, 1, 8, 1, MPI_INT, win, &rq[0]);
    k = 15;
    MPI_Rget(&g, 1, MPI_INT, 1, 9, 1, MPI_INT, win, &rq[1]);
    s += g;
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    int two;
    MPI_Get(&two, 1, MPI_INT, 1, 10, 1, MPI_INT, win);
    MPI_Get(&two, 1, MPI_INT, 1, 11, 1, MPI_INT, win);
    int three = 3;
    MPI_Put(&three, 1, MPI_INT, 1, 12, 1, MPI_INT, win);
    MPI_Get(&three, 1, MPI_INT, 1, 13, 1, MPI_INT, win);
    int four = 4;
    MPI_Put(&four, 1, MPI_INT, 1, 14, 1, MPI_INT, win);
    MPI_Put(&four, 1, MPI_INT, 1, 15, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    s += two + three;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d %d %d %d\n", s, a, c, d[1], fres + cmp + k);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
