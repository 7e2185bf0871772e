/* hrace-test
 * ranks: 3
 * expect: no-race
 * mpi: openmpi
 * env: OMPI_MCA_osc=ucx
 */
/* A target whose main thread is busy inside an MPI call that reads none of hrace's messages
 * (MPI_Recv) while origins flush operations to it: the flushes' COMPLETEs and records are
 * quiet requests (core/chan.h, hrace__chan_send_served: one in eight rings) that nobody reads
 * until someone needs them applied. Each round rank 0 counts in rank 1's x[0] with a fetch-and-op and swaps x[1]
 * with a compare-and-swap, each flushed, and tells rank 2, whose put into the same x[0] is
 * ordered after the fetch-and-op by that message; then rank 2 tells ranks 1 and 0 that the round
 * is over. Rank 0's message publishes its clock, which pings rank 1 first; the ping rings, and
 * rank 1's progress thread applies everything before it. Without the ping the put's record
 * may be applied before the fetch-and-op's (a false race); with a ping that rang no doorbell,
 * every round would wait for the progress thread's 100 ms guard and 2000 rounds would
 * outlast the test's timeout. (A target entirely outside MPI does not work here: Open MPI's
 * passive target, osc/ucx and osc/rdma alike, hangs in the flush without it, hrace or not.)
 * osc/ucx: Open MPI 4.1.4's osc/rdma segfaults in MPI_Compare_and_swap under lock_all here.
 * Only on Open MPI: under MPICH three ranks that busy-poll on two cores took more than 60 s
 * without hrace. Twin: rma_flush_busy_race. */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 2000

int main(int argc, char **argv) {
  int rank, token = 0;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  const long one = 1;
  for (int r = 1; r <= ROUNDS; r++) {
    if (rank == 1) {
      MPI_Recv(&token, 1, MPI_INT, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
      long prev, old, next = r, cmp = r - 1;
      if (r > 1) MPI_Recv(&token, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Fetch_and_op(&one, &prev, MPI_LONG, 1, 0, MPI_SUM, win);
      MPI_Win_flush(1, win);
      MPI_Compare_and_swap(&next, &cmp, &old, MPI_LONG, 1, 1, win);
      MPI_Win_flush(1, win);
      MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    } else {
      long v = -r;
      MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
      MPI_Win_flush(1, win);
      MPI_Send(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
      if (r < ROUNDS) MPI_Send(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("%s\n", x[0] == -ROUNDS && x[1] == ROUNDS ? "ok" : "wrong values");
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
