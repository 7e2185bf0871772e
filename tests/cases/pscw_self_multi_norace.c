/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* A thread that waits inside MPI reads hrace's channel itself (core/chan.h, hrace__chan_help;
 * docs/rma.md, "Synchronisation"): here with two origins, two windows, a test loop instead of
 * MPI_Win_wait, and lock requests on a third window arriving meanwhile. Rank 0 exposes wa to
 * ranks 1 and 2 and ends the exposure with MPI_Win_test; between its post and its test it is
 * the origin of an epoch on wb at rank 1 (its MPI_Win_start takes rank 1's post). Rank 2
 * also locks rank 0's wc while rank 0 waits. Every read of a slot follows the epoch that
 * wrote it, every rewrite precedes the next post: the DONEs of both origins, read by
 * whichever thread, must be applied after their records and before the read. Twin:
 * pscw_self_multi_race. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *a, *b, *c, s = 0, zero = 0, one = 1, origins[2] = {1, 2};
  MPI_Win wa, wb, wc;
  MPI_Group world, g0, g1, g12;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &wa);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &wb);
  MPI_Win_allocate(3 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c, &wc);
  a[0] = a[1] = a[2] = b[0] = c[0] = c[1] = c[2] = 0;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &zero, &g0);
  MPI_Group_incl(world, 1, &one, &g1);
  MPI_Group_incl(world, 2, origins, &g12);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 30; it++) {
    int v = it + rank;
    if (rank == 0) {
      MPI_Win_post(g12, 0, wa);
      MPI_Win_start(g1, 0, wb);
      MPI_Put(&s, 1, MPI_INT, 1, 0, 1, MPI_INT, wb);
      MPI_Win_complete(wb);
      int done = 0;
      while (!done) MPI_Win_test(wa, &done);
      s += a[1] + a[2];
      a[1] = a[2] = 0;
    } else {
      MPI_Win_start(g0, 0, wa);
      MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, wa);
      MPI_Win_complete(wa);
      if (rank == 1) {
        MPI_Win_post(g0, 0, wb);
        MPI_Win_wait(wb);
        s += b[0];
        b[0] = 0;
      } else {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wc);
        MPI_Accumulate(&v, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, wc);
        MPI_Win_unlock(0, wc);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) s += c[2];
  MPI_Group_free(&g0);
  MPI_Group_free(&g1);
  MPI_Group_free(&g12);
  MPI_Group_free(&world);
  printf("%d\n", s);
  MPI_Win_free(&wc);
  MPI_Win_free(&wb);
  MPI_Win_free(&wa);
  MPI_Finalize();
  return 0;
}
