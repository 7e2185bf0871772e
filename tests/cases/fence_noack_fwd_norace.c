/* hrace-test
 * ranks: 4
 * expect: no-race
 */
/* Records of a fence epoch and a forwarded store of the next, at one target, on two
 * connections. Rank 1 puts into M ints of rank 0's shared-memory segment, one put each, t[0]
 * last: when the fence's all-reduce ends, up to a socket's worth of its records (a few hundred
 * kilobytes) still waits at rank 0, which its readers take 64 KiB per round. Rank 2 then
 * stores into t[0] directly (a load or store into another member's segment is forwarded to
 * it: src/rma/shared.c) and publishes its clock to rank 3, which sends the forwarded store at
 * once. Rank 2 opened its connection to rank 0 first, so each round reads rank 2's store
 * before the rest of rank 1's records: rank 0 holds the store back until it has applied the
 * fence's records and left it (src/rma/progress.c, "Fence generations"); applied as read, rank
 * 1's older put into t[0] would be judged against rank 2's newer store (a race between
 * ordered accesses). Rank 0 reads t[0] after the next fence: no race. Twin:
 * fence_noack_fwd_race (rank 0 reads before that fence: a race with rank 2's store only). */
#include <mpi.h>
#include <stdio.h>

#define M 6000
#define ITERS 24

int main(int argc, char **argv) {
  int rank, *mine, *t, du, s = 0;
  MPI_Aint size;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate_shared(rank == 0 ? (M + 1) * sizeof(int) : sizeof(int), sizeof(int),
                          MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
  MPI_Win_shared_query(win, 0, &size, &du, &t);
  int v = rank;
  MPI_Win_fence(0, win);
  if (rank == 0)
    for (int i = 0; i <= M; i++) t[i] = 0;
  MPI_Win_fence(0, win);
  if (rank == 2) MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);   /* first connection to 0 */
  MPI_Win_fence(0, win);
  for (int it = 0; it < ITERS; it++) {
    v = it + rank;
    if (rank == 1) {
      for (int i = M; i > 0; i--) MPI_Put(&v, 1, MPI_INT, 0, i, 1, MPI_INT, win);
      MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    if (rank == 2) {
      t[0] = v;
      MPI_Send(&v, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
    }
    if (rank == 3) MPI_Recv(&v, 1, MPI_INT, 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_fence(0, win);
    if (rank == 0) s += t[0];
    MPI_Win_fence(0, win);
  }
  printf("%d\n", s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
