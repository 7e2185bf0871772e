/* hrace-test
 * ranks: 2
 * expect: no-race
 * env: OMPI_MCA_osc=ucx
 */
/* A flush's COMPLETE and the records before it go to another process as a quiet request (no
 * doorbell but for one in eight, core/chan.h hrace__chan_send_served), and the target's own
 * thread applies them at its next MPI_Win_flush (hrace__chan_serve_quiet, src/rma/epoch.c):
 * the hash table's shape, both ranks a compare-and-swap and a fetch-and-op with a flush each
 * on the other, 3000 times.
 * Then rank 0 counts each of rank 1's slots once more while rank 1 waits in MPI_Recv (which
 * reads no ring), and tells it: rank 1's loads of the counters are ordered after every
 * fetch-and-op only because rank 0's message publishes its clock, which pings rank 1 first
 * (the delivery invariant, docs/rma.md). Without that ping for a quiet COMPLETE, the last of
 * the 64 records may still be in rank 1's ring when it loads. osc/ucx: Open MPI 4.1.4's osc/rdma
 * segfaults in MPI_Compare_and_swap under lock_all here. Twin: rma_flush_serve_race. */
#include <mpi.h>
#include <stdio.h>

#define N 3000
#define SLOTS 64

int main(int argc, char **argv) {
  int rank, token = 0;
  long *x, sum = 0;   /* SLOTS keys, then SLOTS counters */
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int peer = 1 - rank;
  MPI_Win_allocate(2 * SLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x,
                   &win);
  for (int i = 0; i < 2 * SLOTS; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  const long one = 1, zero = 0;
  for (long i = 0; i < N; i++) {
    long key = 1 + i % SLOTS, old, prev;
    MPI_Aint slot = (MPI_Aint)(i % SLOTS);
    MPI_Compare_and_swap(&key, &zero, &old, MPI_LONG, peer, slot, win);
    MPI_Win_flush(peer, win);
    MPI_Fetch_and_op(&one, &prev, MPI_LONG, peer, SLOTS + slot, MPI_SUM, win);
    MPI_Win_flush(peer, win);
  }
  if (rank == 0) {
    for (MPI_Aint s = 0; s < SLOTS; s++) {
      long prev;
      MPI_Fetch_and_op(&one, &prev, MPI_LONG, 1, SLOTS + s, MPI_SUM, win);
      MPI_Win_flush(1, win);
    }
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int s = 0; s < SLOTS; s++) sum += x[SLOTS + s];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("%s\n", sum == N + SLOTS ? "ok" : "wrong count");
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
