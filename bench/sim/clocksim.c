/* clocksim: a trace simulator for hrace's clocks (issue 24). In one process, no MPI: it drives
 * the epoch clocks of src/clocks/eclock.h with synthetic traces of real communication patterns
 * for P ranks and prints what the clocks cost: bytes per message (mean, p99, max), bytes each
 * member contributes to a world collective, clock memory per rank, and time per event; beside
 * it, the same for full vector clocks (4 x P bytes per message and per clock; their time per
 * message is measured on P-entry vectors, a copy and a join, not by simulating the job), and
 * the form hrace ships ("base" columns): dense clocks, a base per world collective (every
 * rank's own entry at its start, src/mpi/coll.c), each message encoded with hrace__vc_encode
 * (src/clocks/vc.c) against the sender's latest base and decoded with hrace__vc_decode; its
 * memory per rank is the clock and the bases kept (the four newest), 4 x P bytes each.
 *
 *   clocksim [-p PATTERN[,PATTERN...]] [-P 64,1024,...] [-i ITERS] [-b BUDGET_MB] [-D MAXP]
 *            [-s] [-c]
 *
 * Patterns (ranks in a periodic grid; halo exchanges one dimension at a time, as codes with
 * corner exchange do: the messages of a later dimension carry what the earlier one brought):
 *   stencil2d-ar1     2-D 5-point halo exchange, MPI_Allreduce every iteration
 *   stencil2d-ar100   the same, MPI_Allreduce every 100 iterations (runs 100 iterations)
 *   stencil3d-ar1     3-D 7-point, MPI_Allreduce every iteration
 *   stencil3d-ar100   3-D, MPI_Allreduce every 100 iterations (runs 100 iterations)
 *   stencil2d-row     2-D, an MPI_Allreduce on each row's communicator every iteration and on
 *                     the world every 10 (sub-communicator collectives have no k of their
 *                     own: what they carry and spread)
 *   lockall-halo      bench/kernels/stencil.c lockall: 1-D ring, one lock_all epoch for the
 *                     run, puts + flush (no clock traffic) then a zero-byte message to each
 *                     neighbour; no collective until the end
 *   alltoall          transpose by MPI_Alltoall each iteration (world collectives only)
 *   master-worker     rank 0 hands out tasks, receives results with MPI_ANY_SOURCE (random
 *                     order) and answers each with the next task; 3 tasks per worker; no
 *                     collective
 *   random-ar1        each iteration two rounds of a random permutation (each rank sends one
 *                     message, receives one), then MPI_Allreduce
 *   random-none       the same without collectives (10 iterations)
 * -s: the grid patterns (stencils, lockall-halo) by symmetry: every rank of a periodic grid
 * doing the same thing holds a translate of rank 0's clock, so only rank 0's is kept and the
 * messages it receives are translates of its own; this reaches 100k ranks where the full
 * simulation's memory does not. -c checks, where both run, that the symmetric simulation gives
 * exactly the byte counts of the full one; for the shipped form (up to CHECK_MAX ranks) also
 * that every decoded clock equals the sender's at the send.
 * A simulation whose clocks would exceed the memory budget (default 2000 MB) stops there and
 * says so: the numbers are then those of the iterations it ran. The shipped form's full
 * simulation holds P dense clocks and costs O(P) per message: it runs up to -D ranks (default
 * 16384) and within the budget; the grid patterns reach any P by symmetry. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocks/eclock.h"
#include "clocks/vc.h"

/* CPU time of this thread: the VM this was written on runs 7 jobs on 2 cores, where wall time
 * says more about the neighbours than about the clocks. */
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static double timer_cost;   /* of one now() call, subtracted where now() brackets few events */

static void calibrate(void) {
  double t0 = now();
  for (int i = 0; i < 100000; i++) now();
  timer_cost = (now() - t0) / 100001;
}

static unsigned long long rng_state = 24;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)((rng_state >> 33) % n);
}

/* ---- statistics ---- */
typedef struct {
  uint64_t *hist;           /* count per message size */
  size_t hmax;              /* sizes 0..hmax-1 */
  uint64_t msgs, bytes, maxb; /* over the sizes noted (every message, or the samples of -s) */
  uint64_t sent, ents;      /* messages of the simulated job, clock entries they carried */
  uint64_t colls, cbytes;   /* world collective contributions (per member) */
  uint64_t gcolls, gbytes;  /* sub-communicator collective contributions (per member) */
  uint64_t events;          /* messages sent + collective member operations */
  uint64_t tev;             /* the events that were timed (-s: rank 0's only) */
  double secs, excl;        /* time of the events; time not to count (symmetry bookkeeping) */
  size_t mem_max;           /* largest clock of a rank seen */
  double mem_mean;          /* mean clock per rank at the end */
  int stopped;              /* iterations run when the budget stopped it (0: ran to the end) */
  uint64_t checked, bad;    /* shipped form: decoded clocks compared with the sender's, unequal */
} stats_t;

static void note_msg(stats_t *s, size_t b, uint64_t weight) {
  if (b >= s->hmax) {
    size_t n = s->hmax ? s->hmax : 1024;
    while (n <= b) n *= 2;
    s->hist = realloc(s->hist, n * sizeof *s->hist);
    memset(s->hist + s->hmax, 0, (n - s->hmax) * sizeof *s->hist);
    s->hmax = n;
  }
  s->hist[b] += weight;
  s->msgs += weight;
  s->bytes += b * weight;
  if (b > s->maxb) s->maxb = b;
}

static uint64_t p99(const stats_t *s) {
  uint64_t want = s->msgs - s->msgs / 100, acc = 0;
  for (size_t b = 0; b < s->hmax; b++)
    if ((acc += s->hist[b]) >= want) return b;
  return s->maxb;
}

/* ---- the simulated job (full simulation: one clock per rank) ---- */
/* The shipped form keeps the four newest bases (src/mpi/coll.c BASES_MIN), more only while a
 * lagging context needs an older one; every context of a simulated rank is current. */
#define BASES_KEPT 4
/* -c compares the shipped form's decoded clocks with copies of the senders' (a phase's worth of
 * P-entry copies), and its symmetric simulation with the full one, up to this many ranks. */
#define CHECK_MAX 4096
typedef struct {
  uint32_t P;
  hrace_ec_proc_t *r;
  uint32_t wcount;          /* world collectives so far */
  hrace_ec_t scratch;
  uint8_t *buf;             /* one message */
  size_t bufcap;
  /* messages of the current phase: sent, then all delivered */
  struct { uint32_t dst, src; size_t off, len; } *q;
  size_t nq, capq;
  uint8_t *arena;
  size_t narena, caparena;
  size_t budget;            /* bytes */
  stats_t *st;
  /* the shipped form (dense): one P-entry clock per rank, the bases of the world collectives */
  int dense;
  uint32_t *dc;             /* P x P: rank i's clock at dc + i * P */
  uint32_t *base[BASES_KEPT]; /* the newest bases, base[(num - 1) % BASES_KEPT] */
  uint32_t nbase;           /* bases made (= world collectives finished) */
  uint32_t *dec;            /* a decoded clock */
  uint32_t *chk;            /* -c: the sender's clock of each queued message (NULL: no check) */
  size_t capchk;
  uint64_t checked, bad;    /* decoded clocks compared with the sender's, and found different */
} job_t;

static uint32_t *dclk(const job_t *j, uint32_t i) { return j->dc + (size_t)i * j->P; }

/* The shipped form's clock memory of one rank: its clock and the bases it keeps. */
static size_t dense_mem(uint32_t P, uint32_t nbase) {
  return 4 * (size_t)P * (1 + (nbase < BASES_KEPT ? nbase : BASES_KEPT));
}

static size_t job_mem(const job_t *j) {
  if (j->dense)           /* what the simulation holds: P clocks, the bases, a phase's copies */
    return j->caparena + 4 * (size_t)j->P * (j->P + BASES_KEPT + 1 + (j->chk ? j->capchk : 0));
  size_t m = j->caparena;
  for (uint32_t i = 0; i < j->P; i++) m += hrace__ec_mem(&j->r[i].clk);
  return m;
}

static void job_init(job_t *j, uint32_t P, size_t budget, stats_t *st, int dense, int check) {
  memset(j, 0, sizeof *j);
  j->P = P;
  if ((j->dense = dense)) {
    j->dc = calloc((size_t)P * P, 4);
    for (int b = 0; b < BASES_KEPT; b++) j->base[b] = calloc(P, 4);
    j->dec = calloc(P, 4);
    if (!j->dc || !j->dec) abort();
    if (check) j->chk = malloc(4 * (size_t)P), j->capchk = 1;
  }
  j->r = calloc(P, sizeof *j->r);
  for (uint32_t i = 0; i < P; i++) hrace__ec_proc_init(&j->r[i], i, false);
  hrace__ec_init(&j->scratch);
  j->budget = budget;
  j->st = st;
}

static void job_free(job_t *j) {
  for (uint32_t i = 0; i < j->P; i++) hrace__ec_proc_free(&j->r[i]);
  free(j->r);
  hrace__ec_free(&j->scratch);
  free(j->buf), free(j->q), free(j->arena);
  free(j->dc), free(j->dec), free(j->chk);
  for (int b = 0; b < BASES_KEPT; b++) free(j->base[b]);
}

static void sample_mem(job_t *j, int final) {
  if (j->dense) {         /* the same at every rank */
    size_t m = dense_mem(j->P, j->nbase);
    if (m > j->st->mem_max) j->st->mem_max = m;
    if (final) j->st->mem_mean = (double)m;
    return;
  }
  double t0 = now();
  size_t tot = 0, mx = 0;
  for (uint32_t i = 0; i < j->P; i++) {
    size_t m = hrace__ec_mem(&j->r[i].clk);
    tot += m;
    if (m > mx) mx = m;
  }
  if (mx > j->st->mem_max) j->st->mem_max = mx;
  if (final) j->st->mem_mean = (double)tot / j->P;
  j->st->excl += now() - t0;
}

/* The entry count of an encoded dense clock (after the base number). */
static uint64_t vc_count(const uint8_t *in, size_t len) {
  const uint8_t *p = in, *end = in + len;
  uint64_t v[2] = { 0, 0 };
  for (int k = 0; k < 2; k++)
    for (unsigned sh = 0; p < end; sh += 7) {
      v[k] |= (uint64_t)(*p & 0x7f) << sh;
      if (!(*p++ & 0x80)) break;
    }
  return v[1];
}

static void queue_room(job_t *j, size_t need) {
  if (j->narena + need > j->caparena) {
    j->caparena = (j->narena + need) * 2;
    j->arena = realloc(j->arena, j->caparena);
    if (!j->arena) abort();
  }
  if (j->nq == j->capq) {
    j->capq = j->capq ? 2 * j->capq : 1024;
    j->q = realloc(j->q, j->capq * sizeof *j->q);
  }
  if (j->chk && j->nq >= j->capchk) {
    j->capchk = 2 * (j->nq + 1);
    if (!(j->chk = realloc(j->chk, j->capchk * 4 * (size_t)j->P))) abort();
  }
}

/* The shipped form (src/mpi/p2p.c encode): rank s's whole clock against the latest base it
 * holds, naming it, with the receiver's entry kept whatever its value; then s ticks. */
static size_t dense_encode(job_t *j, uint32_t s, uint32_t d, uint8_t *out) {
  uint32_t num = j->nbase;
  const uint32_t *b = num ? j->base[(num - 1) % BASES_KEPT] : NULL;
  return hrace__vc_encode(out, num, dclk(j, s), j->P, b, num ? j->P : 0, num ? d : UINT32_MAX);
}

/* Receiver d decodes a message of s (p2p.c decode_frame: the named base, or the zero vector)
 * and joins it; expect, if not NULL, is the sender's clock at the send. */
static void dense_recv(job_t *j, uint32_t d, uint32_t s, const uint8_t *in, size_t len,
                       const uint32_t *expect) {
  uint32_t P = j->P;
  int64_t num = hrace__vc_encoded_base(in, len);
  if (num < 0 || num > j->nbase || (num && j->nbase - num >= BASES_KEPT)) {
    fprintf(stderr, "clocksim: a message names base %lld, the receiver holds %u\n",
            (long long)num, j->nbase);
    exit(1);
  }
  if (num) memcpy(j->dec, j->base[(num - 1) % BASES_KEPT], 4 * (size_t)P);
  else memset(j->dec, 0, 4 * (size_t)P);
  if (hrace__vc_decode(in, len, j->dec, P, num ? d : UINT32_MAX, false) != (long)len) {
    fprintf(stderr, "clocksim: a dense message did not decode\n");
    exit(1);
  }
  (void)s;
  if (expect) {
    j->checked++;
    j->bad += memcmp(expect, j->dec, 4 * (size_t)P) != 0;
  }
  uint32_t *c = dclk(j, d);
  for (uint32_t x = 0; x < P; x++)
    if (j->dec[x] > c[x]) c[x] = j->dec[x];
}

/* Rank s sends to d: its clock is encoded now (into the phase's arena), then it ticks. */
static void job_send(job_t *j, uint32_t s, uint32_t d) {
  if (j->dense) {
    queue_room(j, HRACE_VC_ENC_MAX(j->P));
    size_t n = dense_encode(j, s, d, j->arena + j->narena);
    if (j->chk) memcpy(j->chk + j->nq * (size_t)j->P, dclk(j, s), 4 * (size_t)j->P);
    dclk(j, s)[s]++;
    j->q[j->nq].dst = d, j->q[j->nq].src = s, j->q[j->nq].off = j->narena, j->q[j->nq].len = n;
    j->nq++;
    j->narena += n;
    note_msg(j->st, n, 1);
    j->st->sent++;
    j->st->ents += vc_count(j->arena + j->narena - n, n);
    j->st->events++;
    return;
  }
  const hrace_ec_t *c = &j->r[s].clk;
  size_t need = hrace__ec_encode_max(j->P, c->len);
  if (j->narena + need > j->caparena) {
    j->caparena = (j->narena + need) * 2;
    j->arena = realloc(j->arena, j->caparena);
    if (!j->arena) abort();
  }
  size_t n = hrace__ec_encode(c, 0, s, j->P, j->arena + j->narena);
  hrace__ec_tick(&j->r[s]);
  if (j->nq == j->capq) {
    j->capq = j->capq ? 2 * j->capq : 1024;
    j->q = realloc(j->q, j->capq * sizeof *j->q);
  }
  j->q[j->nq].dst = d, j->q[j->nq].src = s, j->q[j->nq].off = j->narena, j->q[j->nq].len = n;
  j->nq++;
  j->narena += n;
  note_msg(j->st, n, 1);
  j->st->sent++;
  j->st->ents += c->len;
  j->st->events++;
}

/* Deliver every message of the phase (receives posted before the sends, completed after). */
static void job_deliver(job_t *j) {
  for (size_t i = 0; j->dense && i < j->nq; i++)
    dense_recv(j, j->q[i].dst, j->q[i].src, j->arena + j->q[i].off, j->q[i].len,
               j->chk ? j->chk + i * (size_t)j->P : NULL);
  for (size_t i = 0; !j->dense && i < j->nq; i++) {
    if (!hrace__ec_decode(&j->scratch, j->arena + j->q[i].off, j->q[i].len, j->q[i].src, j->P)) {
      fprintf(stderr, "clocksim: a message did not decode\n");
      exit(1);
    }
    hrace__ec_join(&j->r[j->q[i].dst].clk, &j->scratch);
  }
  j->nq = 0, j->narena = 0;
}

/* A blocking world collective (MPI_Allreduce, MPI_Alltoall, MPI_Barrier): every rank contributes
 * its clock beyond the collective's number (usually nothing: only the header travels), then all
 * join what was contributed and know the collective. */
static void job_world(job_t *j) {
  if (j->dense) {
    /* src/mpi/coll.c: an Allgather of one entry per member (its own, at its start), which is
     * the join of every clock and the new base; then each member ticks and joins it. */
    uint32_t P = j->P, *b = j->base[j->nbase % BASES_KEPT];
    for (uint32_t i = 0; i < P; i++) {
      b[i] = dclk(j, i)[i];
      j->st->colls++, j->st->cbytes += 4, j->st->events++;
    }
    j->nbase++;
    for (uint32_t i = 0; i < P; i++) {
      uint32_t *c = dclk(j, i);
      c[i]++;
      for (uint32_t x = 0; x < P; x++)
        if (b[x] > c[x]) c[x] = b[x];
    }
    j->wcount++;
    return;
  }
  uint32_t m = ++j->wcount;
  hrace_ec_t extra;
  hrace__ec_init(&extra);
  extra.k = m;
  for (uint32_t i = 0; i < j->P; i++) {
    const hrace_ec_t *c = &j->r[i].clk;
    size_t need = hrace__ec_encode_max(j->P, c->len);
    if (need > j->bufcap) j->bufcap = need * 2, j->buf = realloc(j->buf, j->bufcap);
    size_t n = hrace__ec_encode(c, m, i, j->P, j->buf);
    j->st->colls++;
    j->st->cbytes += n;
    j->st->events++;
    if (!hrace__ec_decode(&j->scratch, j->buf, n, i, j->P)) abort();
    if (j->scratch.len) hrace__ec_join(&extra, &j->scratch);
    hrace__ec_world_start(&j->r[i], m, NULL);
  }
  for (uint32_t i = 0; i < j->P; i++) {
    if (extra.len) hrace__ec_join(&j->r[i].clk, &extra);
    hrace__ec_world_end(&j->r[i], m);
  }
  hrace__ec_free(&extra);
}

/* A blocking collective on a sub-communicator (an allreduce on a row of the grid): each member
 * contributes its whole clock (no k of the group: docs/design.md, "Clocks at scale"), the start
 * is a signal, and every member joins every contribution. */
static void job_group(job_t *j, const uint32_t *mem, uint32_t s) {
  if (j->dense) {
    /* coll.c: Allreduce(MAX) of [one slot per member | the outsiders' entries], P entries */
    uint32_t P = j->P;
    memset(j->dec, 0, 4 * (size_t)P);
    for (uint32_t i = 0; i < s; i++) {
      const uint32_t *c = dclk(j, mem[i]);
      for (uint32_t x = 0; x < P; x++)
        if (c[x] > j->dec[x]) j->dec[x] = c[x];
      j->st->gcolls++, j->st->gbytes += 4 * (uint64_t)P, j->st->events++;
    }
    for (uint32_t i = 0; i < s; i++) {
      uint32_t *c = dclk(j, mem[i]);
      c[mem[i]]++;
      for (uint32_t x = 0; x < P; x++)
        if (j->dec[x] > c[x]) c[x] = j->dec[x];
    }
    return;
  }
  hrace_ec_t acc;
  hrace__ec_init(&acc);
  for (uint32_t i = 0; i < s; i++) {
    const hrace_ec_t *c = &j->r[mem[i]].clk;
    size_t need = hrace__ec_encode_max(j->P, c->len);
    if (need > j->bufcap) j->bufcap = need * 2, j->buf = realloc(j->buf, j->bufcap);
    size_t n = hrace__ec_encode(c, 0, mem[i], j->P, j->buf);
    j->st->gcolls++;
    j->st->gbytes += n;
    j->st->events++;
    if (!hrace__ec_decode(&j->scratch, j->buf, n, mem[i], j->P)) abort();
    hrace__ec_join(&acc, &j->scratch);
    hrace__ec_tick(&j->r[mem[i]]);
  }
  for (uint32_t i = 0; i < s; i++) hrace__ec_join(&j->r[mem[i]].clk, &acc);
  hrace__ec_free(&acc);
}

static int over_budget(job_t *j) {
  double t0 = now();
  int r = job_mem(j) > j->budget;
  j->st->excl += now() - t0;
  return r;
}

/* ---- grids ---- */
typedef struct { int nd; uint32_t d[3]; } grid_t;

static grid_t make_grid(uint32_t P, int nd) {
  grid_t g = { nd, { 1, 1, 1 } };
  uint32_t rest = P;
  for (int k = 0; k < nd; k++) {
    /* the divisor of rest closest to rest^(1/(nd-k)) */
    double want = 1;
    for (double t = 1; t * t <= 1e18; t++) {
      double p = 1;
      for (int e = 0; e < nd - k; e++) p *= t;
      if (p > rest) break;
      want = t;
    }
    uint32_t best = 1;
    for (uint32_t c = 1; c <= rest; c++)
      if (rest % c == 0 && (best == 1 || (c > want ? c - want : want - c) <
                                         (best > want ? best - want : want - best)))
        best = c;
    if (k == nd - 1) best = rest;
    g.d[k] = best;
    rest /= best;
  }
  return g;
}

static uint32_t neighbour(const grid_t *g, uint32_t r, int dim, int dir) {
  uint32_t c[3], x = r;
  for (int k = 0; k < g->nd; k++) c[k] = x % g->d[k], x /= g->d[k];
  c[dim] = (c[dim] + g->d[dim] + dir) % g->d[dim];
  uint32_t o = 0;
  for (int k = g->nd - 1; k >= 0; k--) o = o * g->d[k] + c[k];
  return o;
}

/* A halo exchange one dimension at a time, an MPI_Allreduce every ar iterations (0: only at
 * the end). */
static void run_grid(job_t *j, int nd, int iters, int ar, int row) {
  grid_t g = make_grid(j->P, nd);
  uint32_t *mem = malloc(g.d[0] * sizeof *mem);
  for (int it = 1; it <= iters; it++) {
    for (int dim = 0; dim < nd; dim++) {
      if (g.d[dim] == 1) continue;
      for (uint32_t r = 0; r < j->P; r++) {
        job_send(j, r, neighbour(&g, r, dim, +1));
        job_send(j, r, neighbour(&g, r, dim, -1));
      }
      job_deliver(j);
    }
    if (row)                                   /* an allreduce on every row communicator */
      for (uint32_t r0 = 0; r0 < j->P; r0 += g.d[0]) {
        for (uint32_t i = 0; i < g.d[0]; i++) mem[i] = r0 + i;
        job_group(j, mem, g.d[0]);
      }
    if (ar && it % ar == 0) job_world(j);
    sample_mem(j, 0);
    if (over_budget(j)) {
      j->st->stopped = it;
      free(mem);
      return;
    }
  }
  free(mem);
  if (!ar) job_world(j);
}

/* ---- symmetric simulation of the grid patterns ----
 * Rank r of a periodic grid holds T_r(C), C being rank 0's clock and T_r the translation by r's
 * coordinates: entry y of C is entry r + y of rank r's clock. The message rank 0 gets from its
 * neighbour at offset v is T_v of what rank 0 sent in the opposite direction. */
static int by_x(const void *a, const void *b) {
  uint32_t x = ((const hrace_ec_ent_t *)a)->x, y = ((const hrace_ec_ent_t *)b)->x;
  return x < y ? -1 : x > y;
}

/* dst = src with every entry moved by the grid vector v (coordinates, any sign). */
static void translate(hrace_ec_t *dst, const hrace_ec_t *src, const grid_t *g, const int64_t *v) {
  if (dst->cap < src->len) {
    dst->cap = src->len;
    dst->e = realloc(dst->e, (size_t)dst->cap * sizeof *dst->e);
  }
  dst->k = src->k;
  dst->len = src->len;
  for (uint32_t i = 0; i < src->len; i++) {
    hrace_ec_ent_t e = src->e[i];
    uint32_t x = e.x, o = 0, c[3];
    for (int k = 0; k < g->nd; k++) {
      int64_t t = (int64_t)(x % g->d[k]) + v[k] % (int64_t)g->d[k] + g->d[k];
      c[k] = (uint32_t)(t % g->d[k]);
      x /= g->d[k];
    }
    for (int k = g->nd - 1; k >= 0; k--) o = o * g->d[k] + c[k];
    e.x = o;
    dst->e[i] = e;
  }
  qsort(dst->e, dst->len, sizeof *dst->e, by_x);
}

static void coords(const grid_t *g, uint32_t r, int64_t *v) {
  for (int k = 0; k < g->nd; k++) v[k] = r % g->d[k], r /= g->d[k];
}

#define SAMPLES 8

static void run_grid_sym(stats_t *st, uint32_t P, int nd, int iters, int ar) {
  grid_t g = make_grid(P, nd);
  hrace_ec_proc_t r0;
  hrace__ec_proc_init(&r0, 0, false);
  hrace_ec_t sent[2], got, tr;
  hrace__ec_init(&sent[0]), hrace__ec_init(&sent[1]), hrace__ec_init(&got), hrace__ec_init(&tr);
  uint8_t *buf = NULL;
  size_t cap = 0;
  uint32_t wcount = 0;
  int colls = 0;
  for (int it = 1; it <= iters + (ar ? 0 : 1); it++) {
    if (it <= iters)
      for (int dim = 0; dim < nd; dim++) {
        if (g.d[dim] == 1) continue;
        size_t len[2];
        double t0 = now();
        for (int s = 0; s < 2; s++) {       /* to +1, then to -1 */
          size_t need = hrace__ec_encode_max(P, r0.clk.len);
          if (2 * need > cap) cap = 4 * need, buf = realloc(buf, cap);
          len[s] = hrace__ec_encode(&r0.clk, 0, 0, P, buf + s * (cap / 2));
          hrace__ec_tick(&r0);
        }
        for (int s = 0; s < 2; s++) {
          /* the neighbour at -1 sent its "+1" message, the one at +1 its "-1" message */
          if (!hrace__ec_decode(&sent[s], buf + s * (cap / 2), len[s], 0, P)) abort();
          double t1 = now();
          int64_t v[3] = { 0, 0, 0 };
          v[dim] = s == 0 ? -1 : +1;
          translate(&tr, &sent[s], &g, v);
          st->excl += now() - t1;
          hrace__ec_join(&r0.clk, &tr);
        }
        st->secs += now() - t0;
        st->excl += 6 * timer_cost;   /* three brackets of now() */
        /* sizes: the entry layout is the same at every rank, the gaps between exporter numbers
         * are not (wrap-around): encode the message as SAMPLES ranks would send it */
        st->tev += 2;
        for (int s = 0; s < 2; s++) {
          st->sent += P, st->ents += (uint64_t)sent[s].len * P, st->events += P;
          for (int q = 0; q < SAMPLES; q++) {
            uint32_t r = q ? (uint32_t)(((uint64_t)q * 2654435761u) % P) : 0;
            int64_t v[3];
            coords(&g, r, v);
            translate(&tr, &sent[s], &g, v);
            size_t need = hrace__ec_encode_max(P, tr.len);
            if (need > cap) cap = 2 * need, buf = realloc(buf, cap);
            note_msg(st, hrace__ec_encode(&tr, 0, r, P, buf), 1);
          }
        }
      }
    if ((ar && it % ar == 0) || (!ar && it == iters + 1)) {
      uint32_t m = ++wcount;
      double t0 = now();
      size_t need = hrace__ec_encode_max(P, r0.clk.len);
      if (need > cap) cap = 2 * need, buf = realloc(buf, cap);
      size_t n = hrace__ec_encode(&r0.clk, m, 0, P, buf);
      if (!hrace__ec_decode(&got, buf, n, 0, P)) abort();
      if (got.len) {
        fprintf(stderr, "clocksim: symmetric mode needs empty world contributions\n");
        exit(1);
      }
      hrace__ec_world_start(&r0, m, NULL);
      hrace__ec_world_end(&r0, m);
      st->secs += now() - t0;
      st->excl += 2 * timer_cost;
      st->colls += P, st->cbytes += n * P, st->events += P, st->tev++;
      colls++;
    }
    size_t m = hrace__ec_mem(&r0.clk);
    if (m > st->mem_max) st->mem_max = m;
  }
  st->mem_mean = (double)hrace__ec_mem(&r0.clk);
  hrace__ec_proc_free(&r0);
  hrace__ec_free(&sent[0]), hrace__ec_free(&sent[1]), hrace__ec_free(&got), hrace__ec_free(&tr);
  free(buf);
}

/* The shipped form by symmetry: rank 0's dense clock D; rank r's is D translated by r. Every
 * rank's own entry is D[0], so a base (every rank's own entry) is the constant vector D[0]:
 * its own translate. Rank 0's messages are encoded, decoded against the base and checked to
 * equal the clock sent; sizes are sampled at SAMPLES ranks as for the epoch form (the entries
 * that differ are translates, the gaps between them are not where the grid wraps). */
static void translate_dense(uint32_t *dst, const uint32_t *src, const grid_t *g, const int64_t *v) {
  uint32_t d0 = g->d[0], d1 = g->d[1], d2 = g->d[2], o[3];
  for (int k = 0; k < 3; k++) {
    int64_t t = k < g->nd ? v[k] % (int64_t)g->d[k] : 0;
    o[k] = (uint32_t)((t + g->d[k]) % g->d[k]);
  }
  size_t y = 0;
  for (uint32_t c2 = 0; c2 < d2; c2++) {
    uint32_t e2 = (c2 + o[2]) % d2;
    for (uint32_t c1 = 0; c1 < d1; c1++) {
      uint32_t e1 = (c1 + o[1]) % d1;
      size_t row = ((size_t)e2 * d1 + e1) * d0;
      uint32_t e0 = o[0];
      for (uint32_t c0 = 0; c0 < d0; c0++, y++) {
        dst[row + e0] = src[y];
        if (++e0 == d0) e0 = 0;
      }
    }
  }
}

static void run_grid_sym_base(stats_t *st, uint32_t P, int nd, int iters, int ar) {
  grid_t g = make_grid(P, nd);
  uint32_t *D = calloc(P, 4), *B = calloc(P, 4), *sent[2] = { calloc(P, 4), calloc(P, 4) };
  uint32_t *tr = calloc(P, 4), *dec = calloc(P, 4), nbase = 0;
  size_t cap = HRACE_VC_ENC_MAX(P);
  uint8_t *buf = malloc(3 * cap);
  for (int it = 1; it <= iters + (ar ? 0 : 1); it++) {
    if (it <= iters)
      for (int dim = 0; dim < nd; dim++) {
        if (g.d[dim] == 1) continue;
        size_t len[2];
        uint32_t dest[2] = { neighbour(&g, 0, dim, +1), neighbour(&g, 0, dim, -1) };
        double t0 = now();
        for (int s = 0; s < 2; s++) {       /* to +1, then to -1 */
          memcpy(sent[s], D, 4 * (size_t)P);
          len[s] = hrace__vc_encode(buf + s * cap, nbase, D, P, nbase ? B : NULL, nbase ? P : 0,
                                    nbase ? dest[s] : UINT32_MAX);
          D[0]++;
        }
        for (int s = 0; s < 2; s++) {
          /* what rank 0's receiver does with it (the same work as with its neighbour's) */
          if (nbase) memcpy(dec, B, 4 * (size_t)P);
          else memset(dec, 0, 4 * (size_t)P);
          if (hrace__vc_decode(buf + s * cap, len[s], dec, P, nbase ? dest[s] : UINT32_MAX,
                               false) != (long)len[s]) abort();
          double t1 = now();
          st->checked++;
          st->bad += memcmp(dec, sent[s], 4 * (size_t)P) != 0;
          /* the neighbour at -1 sent its "+1" message, the one at +1 its "-1" message */
          int64_t v[3] = { 0, 0, 0 };
          v[dim] = s == 0 ? -1 : +1;
          translate_dense(tr, sent[s], &g, v);
          st->excl += now() - t1;
          for (uint32_t x = 0; x < P; x++)
            if (tr[x] > D[x]) D[x] = tr[x];
        }
        st->secs += now() - t0;
        st->excl += 4 * timer_cost;
        st->tev += 2;
        for (int s = 0; s < 2; s++) {
          uint64_t count = vc_count(buf + s * cap, len[s]);
          st->sent += P, st->ents += count * P, st->events += P;
          for (int q = 0; q < SAMPLES; q++) {
            uint32_t r = q ? (uint32_t)(((uint64_t)q * 2654435761u) % P) : 0;
            int64_t v[3];
            coords(&g, r, v);
            translate_dense(tr, sent[s], &g, v);
            uint32_t to = neighbour(&g, r, dim, s == 0 ? +1 : -1);
            size_t n = hrace__vc_encode(buf + 2 * cap, nbase, tr, P, nbase ? B : NULL,
                                        nbase ? P : 0, nbase ? to : UINT32_MAX);
            if (vc_count(buf + 2 * cap, n) != count) {
              fprintf(stderr, "clocksim: a translate has another entry count\n");
              exit(1);
            }
            note_msg(st, n, 1);
          }
        }
      }
    if ((ar && it % ar == 0) || (!ar && it == iters + 1)) {
      double t0 = now();
      for (uint32_t x = 0; x < P; x++) B[x] = D[0];   /* every rank's own entry */
      nbase++;
      D[0]++;
      for (uint32_t x = 0; x < P; x++)
        if (B[x] > D[x]) D[x] = B[x];
      st->secs += now() - t0;
      st->excl += 2 * timer_cost;
      st->colls += P, st->cbytes += 4 * (uint64_t)P, st->events += P, st->tev++;
    }
  }
  st->mem_max = dense_mem(P, nbase);
  st->mem_mean = (double)st->mem_max;
  free(D), free(B), free(sent[0]), free(sent[1]), free(tr), free(dec), free(buf);
}

/* ---- the other patterns ---- */
static void run_alltoall(job_t *j, int iters) {
  for (int it = 0; it < iters; it++) job_world(j);
  sample_mem(j, 0);
}

static void run_master_worker(job_t *j, int tasks_per_worker) {
  uint32_t P = j->P;
  if (P < 2) return;
  /* results pending at the master: one per worker, encoded when the worker sent it */
  uint8_t **res = calloc(P, sizeof *res);
  size_t *rlen = calloc(P, sizeof *rlen);
  uint32_t **rchk = calloc(P, sizeof *rchk);      /* -c, shipped form: the sender's clocks */
  uint32_t *busy = malloc(P * sizeof *busy), nbusy = 0;
  long left = (long)tasks_per_worker * (P - 1);
  /* one message, s to d, delivered at once (the receiver is waiting for it) */
  #define SEND_NOW(s, d) do { job_send(j, s, d); job_deliver(j); } while (0)
  /* the message just queued (worker w's result) kept until the master takes it */
  #define HOLD(w) do {                                                                   \
    res[w] = malloc(j->q[0].len), rlen[w] = j->q[0].len;                                 \
    memcpy(res[w], j->arena, rlen[w]);                                                   \
    if (j->chk) rchk[w] = malloc(4 * (size_t)P), memcpy(rchk[w], j->chk, 4 * (size_t)P); \
    j->nq = 0, j->narena = 0;                                                            \
  } while (0)
  for (uint32_t w = 1; w < P && left > 0; w++, left--) {
    SEND_NOW(0, w);
    busy[nbusy++] = w;
  }
  for (uint32_t i = 0; i < nbusy; i++) {           /* each worker computes and reports */
    uint32_t w = busy[i];
    job_send(j, w, 0);
    HOLD(w);
  }
  long done = 0;
  while (nbusy) {
    uint32_t i = rnd(nbusy), w = busy[i];          /* MPI_ANY_SOURCE: whichever came first */
    if (j->dense) {
      dense_recv(j, 0, w, res[w], rlen[w], rchk[w]);
      free(rchk[w]), rchk[w] = NULL;
    } else {
      if (!hrace__ec_decode(&j->scratch, res[w], rlen[w], w, P)) abort();
      hrace__ec_join(&j->r[0].clk, &j->scratch);
    }
    free(res[w]), res[w] = NULL;
    if (left > 0) {
      left--;
      SEND_NOW(0, w);
      job_send(j, w, 0);
      HOLD(w);
    } else {
      busy[i] = busy[--nbusy];
    }
    if (++done % (P < 1024 ? P : 1024) == 0) {
      sample_mem(j, 0);
      if (over_budget(j)) {
        j->st->stopped = (int)done;
        break;
      }
    }
  }
  #undef SEND_NOW
  #undef HOLD
  for (uint32_t w = 0; w < P; w++) free(res[w]), free(rchk[w]);
  free(res), free(rlen), free(rchk), free(busy);
  if (!j->st->stopped) job_world(j);
}

static void run_random(job_t *j, int iters, int ar) {
  uint32_t P = j->P, *perm = malloc(P * sizeof *perm);
  for (int it = 1; it <= iters; it++) {
    for (int round = 0; round < 2; round++) {
      for (uint32_t r = 0; r < P; r++) perm[r] = r;
      for (uint32_t r = P - 1; r > 0; r--) {
        uint32_t k = rnd(r + 1), t = perm[r];
        perm[r] = perm[k], perm[k] = t;
      }
      for (uint32_t r = 0; r < P; r++) job_send(j, r, perm[r]);
      job_deliver(j);
    }
    if (ar) job_world(j);
    sample_mem(j, 0);
    if (over_budget(j)) {
      j->st->stopped = it;
      break;
    }
  }
  free(perm);
}

/* ---- full vector clocks: time per message on P-entry vectors (copy + join) ---- */
static double full_ns_per_msg(uint32_t P) {
  uint32_t *a = calloc(P, 4), *b = calloc(P, 4), *m = calloc(P, 4);
  for (uint32_t i = 0; i < P; i++) a[i] = rnd(1000), b[i] = rnd(1000);
  long reps = 20000000 / P + 10;
  double t0 = now();
  for (long r = 0; r < reps; r++) {
    memcpy(m, a, (size_t)P * 4);          /* the sender's clock into the message */
    a[r % P]++;
    for (uint32_t i = 0; i < P; i++)      /* the receiver's join */
      if (m[i] > b[i]) b[i] = m[i];
  }
  double t = (now() - t0) / reps * 1e9;
  volatile uint32_t sink = b[rnd(P)];
  (void)sink;
  free(a), free(b), free(m);
  return t;
}

/* ---- main ---- */
static const char *patterns[] = { "stencil2d-ar1", "stencil2d-ar100", "stencil3d-ar1",
                                  "stencil3d-ar100", "stencil2d-row", "lockall-halo", "alltoall",
                                  "master-worker", "random-ar1", "random-none" };

static int is_grid(const char *p) {
  return (!strncmp(p, "stencil", 7) && strcmp(p, "stencil2d-row")) || !strcmp(p, "lockall-halo");
}

static void grid_params(const char *p, int iters, int *nd, int *it, int *ar) {
  *nd = p[7] == '3' ? 3 : p[7] == '2' ? 2 : 1;
  *ar = strstr(p, "ar100") ? 100 : strstr(p, "ar1") ? 1 : 0;
  *it = *ar == 100 ? 100 : iters;
}

/* One simulation of pattern p at P ranks: the epoch form, or (dense) the shipped one; -1 when
 * its clocks cannot fit the budget, -2 when the shipped form's full simulation is above dmax
 * ranks (its work grows as P x messages). */
static int simulate(const char *p, uint32_t P, int iters, size_t budget, int sym, int dense,
                    int check, uint32_t dmax, stats_t *st) {
  memset(st, 0, sizeof *st);
  rng_state = 24;
  if (sym) {
    int nd, it, ar;
    grid_params(p, iters, &nd, &it, &ar);
    if (dense) run_grid_sym_base(st, P, nd, it, ar);
    else run_grid_sym(st, P, nd, it, ar);
    return 0;
  }
  job_t j;
  /* one clock per rank at least: refuse before allocating what cannot fit */
  if ((size_t)P * (sizeof(hrace_ec_proc_t) + 64) > budget) return -1;
  if (dense && 4 * (size_t)P * P > budget) return -1;
  if (dense && P > dmax) return -2;
  job_init(&j, P, budget, st, dense, check && P <= CHECK_MAX);
  double t0 = now();
  if (is_grid(p)) {
    int nd, it, ar;
    grid_params(p, iters, &nd, &it, &ar);
    run_grid(&j, nd, it, ar, 0);
  } else if (!strcmp(p, "stencil2d-row")) {
    run_grid(&j, 2, iters, 10, 1);
  } else if (!strcmp(p, "alltoall")) {
    run_alltoall(&j, iters);
  } else if (!strcmp(p, "master-worker")) {
    run_master_worker(&j, 3);
  } else if (!strcmp(p, "random-ar1")) {
    run_random(&j, iters, 1);
  } else if (!strcmp(p, "random-none")) {
    run_random(&j, 10, 0);
  } else {
    fprintf(stderr, "clocksim: unknown pattern %s\n", p);
    exit(2);
  }
  st->secs = now() - t0;
  sample_mem(&j, 1);
  st->checked += j.checked, st->bad += j.bad;
  job_free(&j);
  return 0;
}

static void fmt_bytes(char *b, size_t n, double v) {
  if (v < 10000) snprintf(b, n, "%.0f", v);
  else if (v < 10e6) snprintf(b, n, "%.1f K", v / 1024);
  else snprintf(b, n, "%.1f M", v / 1048576);
}

/* The shipped form's cells: "mean | p99 | max | B/coll/member | clock/rank | ns/event | " */
static void base_cells(char *out, size_t n, const stats_t *b, int how, double full_ns) {
  if (how < 0) {
    snprintf(out, n, "- | - | - | - | - | - | ");
    return;
  }
  char m[32], cb[32] = "-", nsb[32] = "-";
  fmt_bytes(m, sizeof m, b->mem_mean);
  if (b->colls) snprintf(cb, sizeof cb, "%.1f", (double)b->cbytes / b->colls);
  uint64_t tev = how ? b->tev : b->events;
  double ns = tev ? (b->secs - b->excl) / tev * 1e9 : 0;
  if (full_ns >= 0) snprintf(nsb, sizeof nsb, "%.0f", full_ns);
  else if (tev && (!how || ns > 4 * timer_cost * 1e9)) snprintf(nsb, sizeof nsb, "%.0f", ns);
  snprintf(out, n, "%.1f | %llu | %llu | %s | %s | %s | ", b->msgs ? (double)b->bytes / b->msgs : 0.0,
           (unsigned long long)(b->msgs ? p99(b) : 0), (unsigned long long)b->maxb, cb, m, nsb);
}

int main(int argc, char **argv) {
  char *pats = NULL, *plist = "64,1024,16384,100000";
  int iters = 20, sym = 0, check = 0;
  uint32_t dmax = 16384;
  size_t budget = 2000ull << 20;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-p") && i + 1 < argc) pats = argv[++i];
    else if (!strcmp(argv[i], "-P") && i + 1 < argc) plist = argv[++i];
    else if (!strcmp(argv[i], "-i") && i + 1 < argc) iters = atoi(argv[++i]);
    else if (!strcmp(argv[i], "-b") && i + 1 < argc) budget = (size_t)atol(argv[++i]) << 20;
    else if (!strcmp(argv[i], "-D") && i + 1 < argc) dmax = (uint32_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "-s")) sym = 1;
    else if (!strcmp(argv[i], "-c")) check = 1;
    else {
      fprintf(stderr, "usage: clocksim [-p PATTERN,...] [-P N,...] [-i ITERS] [-b BUDGET_MB] [-D MAXP] [-s] [-c]\n");
      return 2;
    }
  }
  if (iters < 1) {
    fprintf(stderr, "clocksim: -i wants a positive iteration count\n");
    return 2;
  }
  printf("| pattern | P | how | msgs | epoch B/msg mean | p99 | max | full B/msg | epoch B/coll/member | "
         "full B/coll | epoch clock/rank mean | max | full clock/rank | epoch ns/event | full ns/msg | "
         "base B/msg mean | p99 | max | base B/coll/member | base clock/rank | base ns/event | note |\n");
  printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  calibrate();
  int fails = 0;
  size_t np = sizeof patterns / sizeof *patterns;
  for (size_t pi = 0; pi < np; pi++) {
    const char *p = patterns[pi];
    if (pats) {
      char want[64];
      snprintf(want, sizeof want, ",%s,", p);
      char have[512];
      snprintf(have, sizeof have, ",%s,", pats);
      if (!strstr(have, want)) continue;
    }
    char *pl = strdup(plist), *save = NULL;
    for (char *t = strtok_r(pl, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
      uint32_t P = (uint32_t)atol(t);
      if (P < 2) continue;
      stats_t st, bst;
      int use_sym = sym && is_grid(p);
      /* the shipped form: by symmetry, or in full up to dmax ranks */
      int brc = simulate(p, P, iters, budget, use_sym, 1, check, dmax, &bst);
      char bcell[160], bnote[96] = "";
      double bfull_ns = -1;
      if (brc == -1)
        snprintf(bnote, sizeof bnote, "base: not simulated (budget: %u dense clocks of %u B); ", P, 4 * P);
      else if (brc == -2)
        snprintf(bnote, sizeof bnote, "base: not simulated (full simulation above -D %u ranks); ", dmax);
      else if (bst.stopped)
        snprintf(bnote, sizeof bnote, "base: budget: stopped after %d %s; ", bst.stopped,
                 strcmp(p, "master-worker") ? "iterations" : "results");
      if (brc == 0 && bst.bad) {
        fprintf(stderr, "check %s P=%u: %llu of %llu decoded clocks DIFFER FROM the sender's\n", p, P,
                (unsigned long long)bst.bad, (unsigned long long)bst.checked);
        fails++;
      } else if (brc == 0 && bst.checked) {
        fprintf(stderr, "check %s P=%u: shipped form, %llu decoded clocks equal the sender's\n", p, P,
                (unsigned long long)bst.checked);
      }
      if (simulate(p, P, iters, budget, use_sym, 0, 0, dmax, &st) < 0) {
        base_cells(bcell, sizeof bcell, &bst, brc < 0 ? -1 : use_sym, -1);
        printf("| %s | %u | - | | | | | %u | | | | | %u | | | %s%snot simulated: budget |\n", p, P,
               4 * P, 4 * P, bcell, bnote);
        free(bst.hist);
        continue;
      }
      /* The check also gives the time per event: the symmetric run brackets each phase of
       * rank 0 with the timer, which costs more than a phase of small clocks. Not for the
       * ar100 stencils above 1024 ranks, whose full simulation would take minutes and end at
       * the memory budget. */
      double full_ns = -1;
      if (check && use_sym && !(strstr(p, "ar100") && P > 1024)) {
        stats_t full;
        if (simulate(p, P, iters, budget, 0, 0, 0, dmax, &full) == 0 && !full.stopped) {
          int same = full.sent == st.sent && full.ents == st.ents && full.cbytes == st.cbytes;
          fprintf(stderr, "check %s P=%u: symmetric %s the full simulation (%llu msgs, %llu "
                  "entries; bytes per message %.1f, sampled %.1f)\n", p, P,
                  same ? "equals" : "DIFFERS FROM", (unsigned long long)full.sent,
                  (unsigned long long)full.ents, (double)full.bytes / full.msgs,
                  (double)st.bytes / st.msgs);
          fails += !same;
          full_ns = (full.secs - full.excl) / full.events * 1e9;
        }
        free(full.hist);
      }
      /* the same check for the shipped form, where its full simulation runs (up to -D) */
      if (check && use_sym && brc == 0 && P <= CHECK_MAX) {
        stats_t full;
        int rc = simulate(p, P, iters, budget, 0, 1, 1, dmax, &full);
        if (rc == 0) {
          int same = full.sent == bst.sent && full.ents == bst.ents && full.cbytes == bst.cbytes &&
                     !full.bad;
          fprintf(stderr, "check %s P=%u: shipped form, symmetric %s the full simulation (%llu "
                  "msgs, %llu entries, %llu decoded clocks checked; bytes per message %.2f, "
                  "sampled %.2f)\n", p, P, same ? "equals" : "DIFFERS FROM",
                  (unsigned long long)full.sent, (unsigned long long)full.ents,
                  (unsigned long long)full.checked, (double)full.bytes / full.msgs,
                  (double)bst.bytes / bst.msgs);
          fails += !same;
          bfull_ns = (full.secs - full.excl) / full.events * 1e9;
        }
        free(full.hist);
      }
      base_cells(bcell, sizeof bcell, &bst, brc < 0 ? -1 : use_sym, bfull_ns);
      char m1[32], m2[32], m3[32];
      fmt_bytes(m1, sizeof m1, st.mem_mean);
      fmt_bytes(m2, sizeof m2, (double)st.mem_max);
      fmt_bytes(m3, sizeof m3, 4.0 * P);
      if (!use_sym) st.tev = st.events;
      double ns = st.tev ? (st.secs - st.excl) / st.tev * 1e9 : 0;
      char note[256] = "";
      if (full_ns >= 0) ns = full_ns;
      else if (use_sym) snprintf(note, sizeof note, "time: rank 0 of -s; ");
      if (st.gcolls && bst.gcolls)
        snprintf(note + strlen(note), sizeof note - strlen(note), "row allreduce: %.1f B/member (base %.0f); ",
                 (double)st.gbytes / st.gcolls, (double)bst.gbytes / bst.gcolls);
      else if (st.gcolls)
        snprintf(note + strlen(note), sizeof note - strlen(note), "row allreduce: %.1f B/member; ",
                 (double)st.gbytes / st.gcolls);
      if (st.stopped)
        snprintf(note + strlen(note), sizeof note - strlen(note), "budget: stopped after %d %s; ", st.stopped,
                 strcmp(p, "master-worker") ? "iterations" : "results");
      snprintf(note + strlen(note), sizeof note - strlen(note), "%s", bnote);
      char cb[32] = "-", fcb[32] = "-";
      if (st.colls) {
        snprintf(cb, sizeof cb, "%.1f", (double)st.cbytes / st.colls);
        snprintf(fcb, sizeof fcb, "%u", 4 * P);
      }
      char nsb[32] = "-";   /* a bracketed phase of small clocks costs less than the timer */
      if (!use_sym || full_ns >= 0 || ns > 4 * timer_cost * 1e9) snprintf(nsb, sizeof nsb, "%.0f", ns);
      printf("| %s | %u | %s | %llu | %.1f | %llu | %llu | %u | %s | %s | %s | %s | %s | %s | %.0f | %s%s |\n",
             p, P, use_sym ? "sym" : "all", (unsigned long long)st.sent,
             st.msgs ? (double)st.bytes / st.msgs : 0.0, (unsigned long long)(st.msgs ? p99(&st) : 0),
             (unsigned long long)st.maxb, st.msgs ? 4 * P : 0, cb, fcb, m1, m2, m3, nsb,
             full_ns_per_msg(P), bcell, note);
      fflush(stdout);
      free(st.hist), free(bst.hist);
    }
    free(pl);
  }
  return fails ? 1 : 0;
}
