/* hrace-test
 * ranks: 2
 * expect: race
 * env: OMPI_MCA_osc=ucx
 * pair: 39 54
 * pair: 41 56
 * pair: 46 57
 */
/* Racy twin of kern_hist_acc_norace.c and kern_hist_dht_norace.c: the histogram and hash
 * table of bench/kernels/hist.c, compact, without the barrier after MPI_Win_unlock_all. The
 * unlock completes each rank's own accumulates, compare-and-swaps and fetch-and-ops, but
 * nothing orders the other rank's before this rank reads its bins, keys and counters.
 * -DKEEP_SYNC puts the barrier back: hrace must then report nothing (the case would fail).
 * osc/ucx: Open MPI 4.1.4's osc/rdma segfaults in MPI_Compare_and_swap under lock_all here. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { BINS = 16, SLOTS = 32, KEYS = 24 };

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  long *w; /* BINS bins, SLOTS keys, SLOTS counters */
  MPI_Win win;
  MPI_Win_allocate((BINS + 2 * SLOTS) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &w, &win);
  memset(w, 0, (BINS + 2 * SLOTS) * sizeof(long));
  MPI_Barrier(MPI_COMM_WORLD);
  const long one = 1, zero = 0;
  MPI_Win_lock_all(0, win);
  for (long i = 0; i < KEYS; i++) {
    long key = 1 + (i * 7 + rank) % 11;
    int owner = (int)(key % p);
    long slot = key % SLOTS, old, prev;
    MPI_Accumulate(&one, 1, MPI_LONG, owner, key % BINS, 1, MPI_LONG, MPI_SUM, win);
    for (;;) { /* linear probing */
      MPI_Compare_and_swap(&key, &zero, &old, MPI_LONG, owner, BINS + slot, win);
      MPI_Win_flush(owner, win);
      if (old == 0 || old == key) break;
      slot = (slot + 1) % SLOTS;
    }
    MPI_Fetch_and_op(&one, &prev, MPI_LONG, owner, BINS + SLOTS + slot, MPI_SUM, win);
    MPI_Win_flush(owner, win);
  }
  MPI_Win_unlock_all(win);
#ifdef KEEP_SYNC
  MPI_Barrier(MPI_COMM_WORLD);
#endif
  long total = 0, keys = 0, counts = 0;
  for (int b = 0; b < BINS; b++) total += w[b];
  for (int s = 0; s < SLOTS; s++) {
    keys += w[BINS + s] != 0;
    counts += w[BINS + SLOTS + s];
  }
  if (rank == 0) printf("rank 0: %ld in bins, %ld keys, %ld counted\n", total, keys, counts);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
