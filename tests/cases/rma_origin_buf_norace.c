/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_origin_buf_race: each buffer is touched again only after the operation completed
 * locally (MPI_Win_flush_local, MPI_Win_flush_local_all, MPI_Wait on the request, MPI_Win_flush,
 * MPI_Win_unlock), and operations sharing a buffer are separated the same way. */
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
    MPI_Win_flush_local(1, win);
    a = 10;
    MPI_Get(&b, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
    MPI_Get(&c, 1, MPI_INT, 1, 2, 1, MPI_INT, win);
    MPI_Accumulate(d, 2, MPI_INT, 1, 3, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_flush_local_all(win);
    s += b;
    c = 11;
    d[1] = 12;
    MPI_Get_accumulate(&e, 1, MPI_INT, &res, 1, MPI_INT, 1, 5, 1, MPI_INT, MPI_SUM, win);
    MPI_Fetch_and_op(&f, &fres, MPI_INT, 1, 6, MPI_SUM, win);
    MPI_Compare_and_swap(&h, &cmp, &cres, MPI_INT, 1, 7, win);
    MPI_Win_flush(1, win);
    s += res;
    fres = 13;
    cmp = 14;
    MPI_Rput(&k, 1, MPI_INT, 1, 8, 1, MPI_INT, win, &rq[0]);
    MPI_Rget(&g, 1, MPI_INT, 1, 9, 1, MPI_INT, win, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    k = 15;
    s += g;
    int two;
    MPI_Get(&two, 1, MPI_INT, 1, 10, 1, MPI_INT, win);
    MPI_Win_flush_local(1, win);
    MPI_Get(&two, 1, MPI_INT, 1, 11, 1, MPI_INT, win);
    int three = 3;
    MPI_Put(&three, 1, MPI_INT, 1, 12, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(&three, 1, MPI_INT, 1, 13, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    s += two + three;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d %d %d %d\n", s, a, c, d[1], fres + cmp + k);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
