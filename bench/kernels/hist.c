/* Distributed histogram and hash table with MPI atomics, all in one lock_all epoch.
 *   usage: hist acc|dht M ITERS
 *   acc: each rank draws M keys per iteration and adds 1 to the key's bin at its owner with
 *        MPI_Accumulate(MPI_SUM) (no flush until the epoch ends)
 *   dht: each rank inserts M keys per iteration into a distributed open-addressing hash table:
 *        MPI_Compare_and_swap claims a slot (linear probing, one flush per probe), then
 *        MPI_Fetch_and_op(MPI_SUM) counts the key in the slot's counter (flushed: the result
 *        buffer is reused)
 * After MPI_Win_unlock_all and a barrier each rank reads its own part of the window.
 * Verification: exact. Every rank replays all ranks' key streams (they are seeded by rank) and
 * counts the keys it owns; each bin, each occupied slot's counter and the number of occupied
 * slots must match. */
#include "kern.h"

static inline uint64_t mix(uint64_t k)
{
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return k;
}

int KERN_MAIN(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const char *vname = argc > 1 ? argv[1] : "acc";
  int dht = !strcmp(vname, "dht");
  long m = kern_arg(argc, argv, 2, 1000);
  int iters = kern_arg(argc, argv, 3, 2);
  long keyspace = m > 16 ? m : 16;   /* keys are 1..keyspace: many repeats */
  long nbins = 4096;                 /* histogram bins per rank */
  long slots = 2 * (keyspace / p) + 64;
  long wlen = dht ? 2 * slots : nbins; /* dht: slots keys, then slots counters */
  long *w;
  MPI_Win win;
  MPI_Win_allocate(wlen * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win);
  memset(w, 0, wlen * sizeof(long));
  MPI_Barrier(MPI_COMM_WORLD);

  double t0 = MPI_Wtime();
  MPI_Win_lock_all(0, win);
  const long one = 1, zero = 0;
  int ok = 1;
  for (int it = 0; it < iters; it++) {
    uint64_t s = 1000003u * (uint64_t)rank + 7u * (uint64_t)it + 1;
    for (long i = 0; i < m; i++) {
      long key = 1 + (long)(kern_rng(&s) % (uint64_t)keyspace);
      uint64_t h = mix((uint64_t)key);
      int owner = (int)((h >> 40) % (uint64_t)p);
      if (!dht) {
        MPI_Accumulate(&one, 1, MPI_LONG, owner, (MPI_Aint)(h % (uint64_t)nbins), 1, MPI_LONG,
                       MPI_SUM, win);
        continue;
      }
      long slot = (long)(h % (uint64_t)slots), old, prev, probes = 0;
      for (;;) {
        MPI_Compare_and_swap(&key, &zero, &old, MPI_LONG, owner, slot, win);
        MPI_Win_flush(owner, win);
        if (old == 0 || old == key) break;
        slot = (slot + 1) % slots;
        if (++probes == slots) {
          fprintf(stderr, "hist: rank %d: the table of rank %d is full\n", rank, owner);
          MPI_Abort(MPI_COMM_WORLD, 3);
        }
      }
      MPI_Fetch_and_op(&one, &prev, MPI_LONG, owner, slots + slot, MPI_SUM, win);
      MPI_Win_flush(owner, win);
      if (prev < 0) ok = 0;
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime() - t0;

  /* Reference: replay every rank's keys; count those this rank owns. */
  long nref = dht ? keyspace + 1 : nbins;
  long *ref = calloc(nref, sizeof(long));
  for (int r = 0; r < p; r++)
    for (int it = 0; it < iters; it++) {
      uint64_t s = 1000003u * (uint64_t)r + 7u * (uint64_t)it + 1;
      for (long i = 0; i < m; i++) {
        long key = 1 + (long)(kern_rng(&s) % (uint64_t)keyspace);
        uint64_t h = mix((uint64_t)key);
        if ((int)((h >> 40) % (uint64_t)p) == rank) ref[dht ? key : (long)(h % (uint64_t)nbins)]++;
      }
    }
  if (!dht) {
    for (long b = 0; b < nbins; b++)
      if (w[b] != ref[b]) ok = 0;
  } else {
    long occupied = 0, distinct = 0;
    for (long k = 1; k <= keyspace; k++) distinct += ref[k] > 0;
    for (long sl = 0; sl < slots; sl++) {
      long key = w[sl];
      if (!key) continue;
      occupied++;
      if (key < 1 || key > keyspace || w[slots + sl] != ref[key]) ok = 0;
    }
    if (occupied != distinct) ok = 0;
  }
  if (!ok) fprintf(stderr, "hist: rank %d: counts differ from the replayed keys\n", rank);
  int rc = kern_finish("hist", vname, m, iters, t, ok);
  free(ref);
  MPI_Win_free(&win);
  MPI_Finalize();
  return rc;
}
