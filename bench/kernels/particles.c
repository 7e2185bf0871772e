/* Particles with a random (irregular) neighbour list; ghost values pushed with indexed puts.
 *   usage: particles N ITERS          (N particles per rank, 4 neighbours each on average)
 * Every rank draws the same global list of random particle pairs and keeps those that touch its
 * particles. Each iteration, every rank puts the values of its particles that rank t needs, picked
 * from x with an MPI_Type_create_indexed_block origin datatype, into t's ghost window (a region
 * per origin, two ghost buffers used in turn), inside one MPI_Win_lock_all epoch for the run:
 * MPI_Win_flush_all, MPI_Barrier, then every particle moves towards its neighbours,
 * x_i += dt * sum_j (x_j - x_i).
 * Verification: the interactions are symmetric, so the global sum of x is conserved exactly in
 * exact arithmetic (and only when every ghost read is the owner's current value); every update is
 * a convex combination, so values stay within the initial range. */
#include "kern.h"
#include <math.h>

static int cmp_long(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static long find(const long *v, long n, long key) /* index of key in sorted v */
{
  long lo = 0, hi = n - 1;
  while (lo < hi) {
    long mid = (lo + hi) / 2;
    if (v[mid] < key) lo = mid + 1; else hi = mid;
  }
  return lo;
}

static long uniq(long *v, long n)
{
  qsort(v, n, sizeof(long), cmp_long);
  long k = 0;
  for (long i = 0; i < n; i++)
    if (!k || v[k - 1] != v[i]) v[k++] = v[i];
  return k;
}

int KERN_MAIN(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  long n = kern_arg(argc, argv, 1, 256);
  int iters = kern_arg(argc, argv, 2, 10);
  const int deg = 4;
  long total = n * p, npairs = total * deg / 2;

  /* My ends of the pairs: mine[e] is my local particle, other[e] the partner's global id. */
  long ne = 0, cap = 3 * npairs / p + 64;
  long *mine = malloc(cap * sizeof(long)), *other = malloc(cap * sizeof(long));
  uint64_t s = 12345;
  for (long q = 0; q < npairs; q++) {
    long a = (long)(kern_rng(&s) % (uint64_t)total), b = (long)(kern_rng(&s) % (uint64_t)total);
    if (a == b) continue;
    for (int side = 0; side < 2; side++) {
      long x = side ? b : a, y = side ? a : b;
      if (x / n != rank) continue;
      if (ne == cap) {
        cap *= 2;
        mine = realloc(mine, cap * sizeof(long));
        other = realloc(other, cap * sizeof(long));
      }
      mine[ne] = x % n;
      other[ne++] = y;
    }
  }
  /* need[s]: sorted distinct local ids on rank s that I read; give[s]: mine that s reads (the
   * same pairs seen from the other end, so s's need[me] is my give[s], in the same order). */
  long *cnt = calloc(p, sizeof(long)), **need = malloc(p * sizeof(long *));
  long *gcnt = calloc(p, sizeof(long)), **give = malloc(p * sizeof(long *));
  for (int r = 0; r < p; r++) {
    need[r] = malloc((ne + 1) * sizeof(long));
    give[r] = malloc((ne + 1) * sizeof(long));
  }
  for (long e = 0; e < ne; e++) {
    int o = (int)(other[e] / n);
    if (o == rank) continue;
    need[o][cnt[o]++] = other[e] % n;
    give[o][gcnt[o]++] = mine[e];
  }
  int *off = calloc(p, sizeof(int)), *theiroff = calloc(p, sizeof(int));
  long ghosts = 0;
  for (int r = 0; r < p; r++) {
    cnt[r] = uniq(need[r], cnt[r]);
    gcnt[r] = uniq(give[r], gcnt[r]);
    off[r] = (int)ghosts;
    ghosts += cnt[r];
  }
  /* Where my values go in each rank's ghost buffer, and how long that buffer is. */
  MPI_Alltoall(off, 1, MPI_INT, theiroff, 1, MPI_INT, MPI_COMM_WORLD);
  int g = (int)ghosts, *glen = malloc(p * sizeof(int));
  MPI_Allgather(&g, 1, MPI_INT, glen, 1, MPI_INT, MPI_COMM_WORLD);
  /* src[e] >= 0: a local particle; < 0: -1 - ghost slot (within one ghost buffer) */
  long *src = malloc((ne + 1) * sizeof(long));
  for (long e = 0; e < ne; e++) {
    int o = (int)(other[e] / n);
    src[e] = o == rank ? other[e] % n : -1 - (off[o] + find(need[o], cnt[o], other[e] % n));
  }
  MPI_Datatype *pick = malloc(p * sizeof(MPI_Datatype));
  for (int r = 0; r < p; r++) {
    int *idx = malloc((gcnt[r] + 1) * sizeof(int));
    for (long k = 0; k < gcnt[r]; k++) idx[k] = (int)give[r][k];
    MPI_Type_create_indexed_block((int)gcnt[r], 1, idx, MPI_DOUBLE, &pick[r]);
    MPI_Type_commit(&pick[r]);
    free(idx);
  }

  double *x = malloc(n * sizeof(double)), *f = malloc(n * sizeof(double)), *gh;
  MPI_Win win;
  MPI_Win_allocate((2 * ghosts + 1) * sizeof(double), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &gh, &win);
  uint64_t xs = 99 + (uint64_t)rank;
  double lsum = 0, lmin = 1, lmax = 0;
  for (long i = 0; i < n; i++) {
    x[i] = kern_unit(&xs);
    lsum += x[i];
    lmin = x[i] < lmin ? x[i] : lmin;
    lmax = x[i] > lmax ? x[i] : lmax;
  }
  double sum0, min0, max0;
  MPI_Allreduce(&lsum, &sum0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&lmin, &min0, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&lmax, &max0, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double dt = 0.02;    /* dt * (largest degree) < 1 keeps each update convex */

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_Win_lock_all(0, win);
  for (int it = 0; it < iters; it++) {
    int par = it & 1;
    for (int k = 1; k < p; k++) {
      int t = (rank + k) % p;
      if (gcnt[t])
        MPI_Put(x, 1, pick[t], t, (MPI_Aint)par * glen[t] + theiroff[t], (int)gcnt[t], MPI_DOUBLE,
                win);
    }
    MPI_Win_flush_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);   /* the public copy into the private one (MPI-3.1 11.7; MPICH needs it) */
    const double *gp = gh + (size_t)par * ghosts;
    memset(f, 0, n * sizeof(double));
    for (long e = 0; e < ne; e++) {
      long i = mine[e];
      double xj = src[e] >= 0 ? x[src[e]] : gp[-1 - src[e]];
      f[i] += xj - x[i];
    }
    for (long i = 0; i < n; i++) x[i] += dt * f[i];
  }
  MPI_Win_unlock_all(win);
  double t = MPI_Wtime() - t0;

  int ok = 1;
  lsum = 0;
  for (long i = 0; i < n; i++) {
    lsum += x[i];
    if (!(x[i] >= min0 - 1e-12 && x[i] <= max0 + 1e-12)) ok = 0;
  }
  double sum;
  MPI_Allreduce(&lsum, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (fabs(sum - sum0) > 1e-9 * (double)total) ok = 0;
  if (!ok && rank == 0)
    fprintf(stderr, "particles: sum %.12g, expected %.12g (or a value left [%g, %g])\n", sum,
            sum0, min0, max0);
  int rc = kern_finish("particles", "lockall", n, iters, t, ok);
  for (int r = 0; r < p; r++) {
    MPI_Type_free(&pick[r]);
    free(need[r]);
    free(give[r]);
  }
  free(give); free(gcnt);
  MPI_Win_free(&win);
  free(pick); free(need); free(cnt); free(off); free(theiroff); free(glen); free(src);
  free(mine); free(other); free(x); free(f);
  MPI_Finalize();
  return rc;
}
