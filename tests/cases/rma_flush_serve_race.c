/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 35 38
 * env: OMPI_MCA_osc=ucx
 */
/* Twin of rma_flush_serve_norace: halfway through, rank 1 loads its own counter of slot 0,
 * which rank 0 keeps counting with fetch-and-ops that nothing orders with the load. Rank 0's
 * records reach rank 1 as quiet requests and are applied by rank 1's own MPI_Win_flush
 * (hrace__chan_serve_quiet): were they read there and not applied, the race would be lost. */
#include <mpi.h>
#include <stdio.h>

#define N 3000
#define SLOTS 64

int main(int argc, char **argv) {
  int rank;
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
    if (rank == 1 && i == N / 2)
      sum += x[SLOTS];
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) printf("%ld\n", sum);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
