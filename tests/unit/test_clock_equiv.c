/* Property test of the epoch clocks (src/clocks/eclock.h): random communication traces replayed
 * through the epoch clocks and through full vector clocks (src/clocks/vc.h) side by side; every
 * happens-before answer must be the same.
 *
 * A trace has P ranks (world class) and Q extra exporters of class NEVER (second MPI-calling
 * threads: they take part in no world collective). Its events, chosen at random:
 *  - point-to-point sends, and receives from a given source (oldest first) or ANY_SOURCE (any
 *    pending message, any order);
 *  - world collectives, blocking (all start, then all end) and nonblocking (each rank starts and
 *    ends when it likes, several may be outstanding; an end waits until every rank started);
 *  - collectives on random sub-groups (all-to-all, one-to-all, all-to-one), blocking and
 *    nonblocking, which members of either class may call;
 *  - RMA epochs: fence on a window of the world (a world collective) or of a sub-group, lock /
 *    unlock of a target's lock (the unlocker's clock is deposited at the target, the next locker
 *    joins it), PSCW (post messages to the origins, complete messages back, wait), and flushes
 *    (the completed operation gets the origin's current epoch: a recorded stamp);
 *  - accesses: the exporter's current epoch is recorded as a stamp.
 * Every clock that crosses exporters (messages, contributions, deposits) goes through
 * hrace__ec_encode / hrace__ec_decode, and a world collective's contribution is encoded with
 * kmin = its number, so the test also checks that only entries beyond it need to travel.
 * After each event a few random (stamp, clock) pairs are asked, at the end of each trace every
 * pair. Seeded (argv[1] or 24); stops after argv[2] traces (3000) or 30 s, whichever is first.
 * One more run with a deliberate bug (k raised one too far at a world collective's end) must
 * find a difference: the test can fail. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clocks/eclock.h"
#include "clocks/vc.h"
#include "tap.h"

#define MAXE 16
#define MAXEV 500

typedef struct { uint32_t x, c, g, n; } stamp_t;
typedef struct { hrace_vc_t v; hrace_ec_t e; } clk2_t;          /* one clock, both forms */
typedef struct msg { int src, dst, kind; clk2_t c; struct msg *next; } msg_t;

/* a started group operation (world collective or sub-group collective) */
typedef struct gop {
  int world;                 /* world collective number (0: a sub-group one) */
  int kind;                  /* 0 all-to-all, 1 one-to-all (root's clock), 2 all-to-one (root joins) */
  int nm, members[MAXE], root;
  int started[MAXE], ended[MAXE];
  clk2_t contrib[MAXE];
} gop_t;

static struct {
  unsigned rng;
  int P, Q, N;
  hrace_vc_t full[MAXE];
  hrace_ec_proc_t ep[MAXE];
  clk2_t lockbox[MAXE];                   /* per target: the deposits of its unlockers */
  msg_t *msgs;
  gop_t *ops[64];
  int nops;
  int wstarted[MAXE], wended[MAXE];       /* per rank: world collectives started / ended */
  int wmax;                               /* world collectives created */
  stamp_t st[MAXEV * 4];
  int nst;
  int bug;
  long asked, yes, differ;
} T;
static long n_wend, n_subend, n_recv, n_wild, n_kmax, n_pruned;   /* what the traces exercised */

static unsigned rnd(unsigned n) {
  T.rng = T.rng * 1103515245u + 12345u;
  return (T.rng >> 8) % n;
}

static void c2_init(clk2_t *c, int n) { hrace__vc_init(&c->v, n); hrace__ec_init(&c->e); }
static void c2_free(clk2_t *c) { hrace__vc_free(&c->v); hrace__ec_free(&c->e); }

/* Copy exporter x's clock into dst, the epoch form through the wire (kmin as for a contribution
 * to world collective kmin, or 0). */
static void take(clk2_t *dst, int x, uint32_t kmin) {
  hrace__vc_copy(&dst->v, &T.full[x]);
  static uint8_t buf[1 << 16];
  size_t n = hrace__ec_encode(&T.ep[x].clk, kmin, x, T.N, buf);
  if (!hrace__ec_decode(&dst->e, buf, n, x, T.N)) {
    ok(0, "decode of an encoded clock failed");
    exit(1);
  }
}

static void join_into(int x, const clk2_t *c) {
  hrace__vc_join(&T.full[x], &c->v);
  hrace__ec_join(&T.ep[x].clk, &c->e);
}

static void tick(int x) {
  T.full[x].c[x]++;
  hrace__ec_tick(&T.ep[x]);
}

static void record(int x) {
  if (T.nst == (int)(sizeof T.st / sizeof T.st[0])) return;
  T.st[T.nst++] = (stamp_t){ x, T.full[x].c[x], T.ep[x].g, T.ep[x].n };
}

static void ask(const stamp_t *s, const hrace_vc_t *v, const hrace_ec_t *e) {
  bool a = hrace__epoch_hb(s->x, s->c, v), b = hrace__ec_hb(s->x, s->g, s->n, e);
  T.asked++;
  T.yes += a;
  if (a != b) {
    static int shown;
    if (!T.bug && shown++ < 5)
      diag("differ: stamp (%u: c %u, g %u n %u) full %d epoch %d (k %u)", s->x, s->c, s->g, s->n,
           a, b, e->k);
    T.differ++;
  }
}

static void ask_random(int times) {
  if (!T.nst) return;
  for (int i = 0; i < times; i++) {
    const stamp_t *s = &T.st[rnd(T.nst)];
    int w = rnd(3);
    if (w == 0 || !T.msgs) {
      int x = rnd(T.N);
      ask(s, &T.full[x], &T.ep[x].clk);
    } else if (w == 1) {
      int x = rnd(T.N);
      ask(s, &T.lockbox[x].v, &T.lockbox[x].e);
    } else {
      ask(s, &T.msgs->c.v, &T.msgs->c.e);
    }
  }
}

/* ---- point to point ---- */
static void send(int s, int d, int kind) {
  msg_t *m = calloc(1, sizeof *m);
  m->src = s, m->dst = d, m->kind = kind;
  c2_init(&m->c, T.N);
  take(&m->c, s, 0);
  m->next = NULL;
  msg_t **p = &T.msgs;
  while (*p) p = &(*p)->next;
  *p = m;
  tick(s);
}

/* Receive at d: from src (the oldest of that source and kind), or from anyone (-1: any pending
 * message of that kind, not necessarily the oldest). Returns false if none. */
static bool recv(int d, int src, int kind) {
  msg_t **cand[64];
  int nc = 0;
  for (msg_t **p = &T.msgs; *p && nc < 64; p = &(*p)->next) {
    msg_t *m = *p;
    if (m->dst != d || m->kind != kind) continue;
    if (src >= 0 && m->src != src) continue;
    bool first = true;                     /* non-overtaking: oldest of its source */
    for (int i = 0; i < nc; i++)
      if ((*cand[i])->src == m->src) first = false;
    if (first) cand[nc++] = p;
  }
  if (!nc) return false;
  msg_t **p = cand[src >= 0 ? 0 : rnd(nc)];
  msg_t *m = *p;
  *p = m->next;
  n_recv++;
  n_wild += src < 0;
  join_into(d, &m->c);
  c2_free(&m->c);
  free(m);
  return true;
}

/* ---- group operations ---- */
static gop_t *gop_new(int world, int kind, int nm, const int *mem) {
  if (T.nops == 64) return NULL;
  gop_t *g = calloc(1, sizeof *g);
  g->world = world, g->kind = kind, g->nm = nm;
  memcpy(g->members, mem, nm * sizeof *mem);
  g->root = mem[rnd(nm)];
  for (int i = 0; i < nm; i++) c2_init(&g->contrib[i], T.N);
  T.ops[T.nops++] = g;
  return g;
}

static void gop_start(gop_t *g, int i) {
  int x = g->members[i];
  take(&g->contrib[i], x, g->world);
  if (g->world) {
    T.full[x].c[x]++;                     /* the start is a signal */
    hrace__ec_world_start(&T.ep[x], g->world, NULL);
    T.wstarted[x] = g->world;
  } else {
    tick(x);
  }
  g->started[i] = 1;
}

static bool all_started(const gop_t *g) {
  for (int i = 0; i < g->nm; i++)
    if (!g->started[i]) return false;
  return true;
}

static void gop_retire(gop_t *g) {
  for (int i = 0; i < g->nm; i++)
    if (!g->ended[i]) return;
  for (int i = 0; i < T.nops; i++)
    if (T.ops[i] == g) T.ops[i] = T.ops[--T.nops];
  for (int i = 0; i < g->nm; i++) c2_free(&g->contrib[i]);
  free(g);
}

static void gop_end(gop_t *g, int i) {
  int x = g->members[i];
  if (g->kind == 1) {
    for (int j = 0; j < g->nm; j++)
      if (g->members[j] == g->root) join_into(x, &g->contrib[j]);
  } else if (g->kind == 0 || x == g->root) {
    for (int j = 0; j < g->nm; j++) join_into(x, &g->contrib[j]);
  }
  if (g->world) {
    n_wend++;
    if ((long)g->world > n_kmax) n_kmax = g->world;
    hrace__ec_world_end(&T.ep[x], g->world + T.bug);
    T.wended[x] = g->world;
  } else {
    n_subend++;
  }
  g->ended[i] = 1;
  gop_retire(g);
}

static gop_t *world_op(int m) {
  for (int i = 0; i < T.nops; i++)
    if (T.ops[i]->world == m) return T.ops[i];
  return NULL;
}

/* Rank r starts its next world collective (creating it if r is the first). */
static void world_start_next(int r) {
  int m = T.wstarted[r] + 1;
  gop_t *g = world_op(m);
  if (!g) {
    if (m <= T.wmax) return;              /* retired: cannot happen (r has not started it) */
    int mem[MAXE];
    for (int i = 0; i < T.P; i++) mem[i] = i;
    g = gop_new(m, 0, T.P, mem);
    if (!g) return;
    T.wmax = m;
  }
  gop_start(g, r);
}

/* Rank r ends its oldest outstanding world collective whose members all started; any order of
 * ends is allowed by MPI, so pick a random outstanding one. */
static void world_end_some(int r) {
  gop_t *c[64];
  int nc = 0;
  for (int i = 0; i < T.nops; i++) {
    gop_t *g = T.ops[i];
    if (g->world && g->started[r] && !g->ended[r] && all_started(g)) c[nc++] = g;
  }
  if (nc) gop_end(c[rnd(nc)], r);
}

static void world_blocking(void) {
  /* every rank first starts what it has not started yet, then the new one, then all end it */
  int m = T.wmax + 1;
  for (int r = 0; r < T.P; r++)
    while (T.wstarted[r] < m) {
      int before = T.wstarted[r];
      world_start_next(r);
      if (T.wstarted[r] == before) return;
    }
  gop_t *g = world_op(m);
  if (!g) return;
  for (int r = 0; r < T.P; r++) gop_end(g, r);
}

static int random_group(int *mem) {
  int nm = 2 + rnd(T.N - 1), all[MAXE];
  for (int i = 0; i < T.N; i++) all[i] = i;
  for (int i = 0; i < nm; i++) {
    int j = i + rnd(T.N - i), t = all[i];
    all[i] = all[j], all[j] = t;
    mem[i] = all[i];
  }
  return nm;
}

static void sub_blocking(int kind) {
  int mem[MAXE], nm = random_group(mem);
  gop_t *g = gop_new(0, kind, nm, mem);
  if (!g) return;
  for (int i = 0; i < nm; i++) gop_start(g, i);
  for (int i = 0; i < nm; i++) gop_end(g, i);
}

/* a nonblocking sub-group collective: start at some members now, the rest later */
static void sub_nonblocking_step(void) {
  gop_t *open[64];
  int no = 0;
  for (int i = 0; i < T.nops; i++)
    if (!T.ops[i]->world) open[no++] = T.ops[i];
  if (!no || rnd(3) == 0) {
    int mem[MAXE], nm = random_group(mem);
    gop_t *g = gop_new(0, rnd(3), nm, mem);
    if (g) gop_start(g, 0);
    return;
  }
  gop_t *g = open[rnd(no)];
  int i = rnd(g->nm);
  if (!g->started[i]) gop_start(g, i);
  else if (!g->ended[i] && all_started(g)) gop_end(g, i);
}

/* ---- RMA ---- */
static void lock_unlock(int o, int t) {
  join_into(o, &T.lockbox[t]);            /* lock: after the previous holders' unlocks */
  record(o);                              /* the put */
  clk2_t c;
  c2_init(&c, T.N);
  take(&c, o, 0);                         /* unlock: deposit */
  hrace__vc_join(&T.lockbox[t].v, &c.v);
  hrace__ec_join(&T.lockbox[t].e, &c.e);
  c2_free(&c);
  tick(o);
}

static void pscw(int t) {
  int mem[MAXE], nm = random_group(mem), k = 0;
  for (int i = 0; i < nm; i++)
    if (mem[i] != t) mem[k++] = mem[i];
  for (int i = 0; i < k; i++) send(t, mem[i], 1);          /* post */
  for (int i = 0; i < k; i++) {
    recv(mem[i], t, 1);                                    /* start */
    record(mem[i]);                                        /* put */
    send(mem[i], t, 2);                                    /* complete */
  }
  while (recv(t, -1, 2)) {}                                /* wait */
}

static void fence_sub(void) { sub_blocking(0); }

static void step(void) {
  int x = rnd(T.N), r = rnd(T.P);
  switch (rnd(16)) {
  case 0: case 1: record(x); break;
  case 2: case 3: send(x, rnd(T.N), 0); break;
  case 4: recv(x, rnd(T.N), 0); break;
  case 5: case 6: recv(x, -1, 0); break;                   /* wildcard */
  case 7: if (rnd(4) == 0) world_blocking(); break;        /* also a world fence */
  case 8: world_start_next(r); break;
  case 9: world_end_some(r); break;
  case 10: if (rnd(2)) sub_blocking(rnd(3)); break;
  case 11: sub_nonblocking_step(); break;
  case 12: lock_unlock(x, rnd(T.N)); break;
  case 13: if (rnd(3) == 0) pscw(x); break;
  case 14: if (rnd(3) == 0) fence_sub(); break;
  case 15: record(x), tick(x); break;                      /* flush, then a signal */
  }
}

static void trace(unsigned seed, int bug) {
  memset(&T, 0, sizeof T);
  T.rng = seed;
  T.bug = bug;
  T.P = 2 + rnd(9);
  T.Q = rnd(3) ? 0 : 1 + rnd(3);
  T.N = T.P + T.Q;
  for (int x = 0; x < T.N; x++) {
    hrace__vc_init(&T.full[x], T.N);
    T.full[x].c[x] = 1;
    hrace__ec_proc_init(&T.ep[x], x, x >= T.P);
    c2_init(&T.lockbox[x], T.N);
  }
  int nev = 50 + rnd(MAXEV - 50);
  for (int i = 0; i < nev; i++) {
    step();
    ask_random(4);
  }
  for (int i = 0; i < T.nst; i++)
    for (int x = 0; x < T.N; x++) {
      ask(&T.st[i], &T.full[x], &T.ep[x].clk);
      ask(&T.st[i], &T.lockbox[x].v, &T.lockbox[x].e);
    }
  long asked = T.asked, yes = T.yes, differ = T.differ;
  for (int x = 0; x < T.N; x++) {
    if (!bug) n_pruned += T.N - (long)T.ep[x].clk.len;
    hrace__vc_free(&T.full[x]);
    hrace__ec_proc_free(&T.ep[x]);
    c2_free(&T.lockbox[x]);
  }
  while (T.msgs) {
    msg_t *m = T.msgs;
    T.msgs = m->next;
    c2_free(&m->c);
    free(m);
  }
  while (T.nops) {
    gop_t *g = T.ops[--T.nops];
    for (int i = 0; i < g->nm; i++) c2_free(&g->contrib[i]);
    free(g);
  }
  T.asked = asked, T.yes = yes, T.differ = differ;
}

/* The wire form of point-to-point clocks (vc.h, hrace__vc_encode): a dense clock encoded
 * against a base both sides hold decodes to itself, whatever the two hold (entries below the
 * base included); entries equal to the base cost nothing but the kept one; a receiver without
 * the base (decoding against zeros) still reads every entry sent exactly, the kept one among
 * them; and a truncated or corrupted stream is refused, never read beyond its end. */
static void wire_roundtrip(unsigned seed) {
  unsigned save = T.rng;
  T.rng = seed;
  long trials = 0, wrong = 0, kept_wrong = 0, short_ok = 0, sizes_wrong = 0, junk_bad = 0;
  uint8_t buf[HRACE_VC_ENC_MAX(300)];
  hrace_clk_t v[300], base[300], out[300];
  for (int t = 0; t < 20000; t++, trials++) {
    uint32_t n = 1 + rnd(300), changed = rnd(4) ? rnd(6) : rnd(n + 1);
    int has_base = rnd(4) != 0;
    uint32_t num = has_base ? 1 + rnd(100000) : 0, keep = rnd(3) ? rnd(n) : UINT32_MAX;
    for (uint32_t x = 0; x < n; x++) {
      base[x] = has_base ? rnd(4) ? rnd(1000) : rnd(2) ? 0 : 0xfffffff0u + rnd(16) : 0;
      v[x] = base[x];
    }
    for (uint32_t i = 0; i < changed; i++) {
      uint32_t x = rnd(n);
      v[x] = rnd(5) == 0 ? (rnd(2) ? 0 : UINT32_MAX - rnd(3)) : base[x] + rnd(300);
      if (rnd(8) == 0 && base[x] > 0) v[x] = base[x] - 1 - rnd(base[x]);   /* below the base */
    }
    size_t len = hrace__vc_encode(buf, num, v, n, has_base ? base : NULL, has_base ? n : 0, keep);
    uint32_t differ = 0;
    for (uint32_t x = 0; x < n; x++) differ += v[x] != base[x] || x == keep;
    if (len > HRACE_VC_ENC_MAX(n) || (differ == 0 && len > 2 + 3) || len < 2) sizes_wrong++;
    if (hrace__vc_encoded_base(buf, len) != (int64_t)num) wrong++;
    memcpy(out, base, n * sizeof *out);
    if (hrace__vc_decode(buf, len, out, n, keep, false) != (long)len || memcmp(out, v, n * sizeof *v)) {
      if (!wrong) {
        uint32_t x = 0;
        while (x < n && out[x] == v[x]) x++;
        diag("n %u keep %u num %u len %zu: entry %u decoded %u, was %u (base %u)", n, keep, num,
             len, x, x < n ? out[x] : 0, x < n ? v[x] : 0, x < n ? base[x] : 0);
      }
      wrong++;
    }
    /* Without the base: the kept entry reads exactly, nothing else is touched. */
    memset(out, 0, sizeof out);
    if (hrace__vc_decode(buf, len, out, n, keep, true) != (long)len) wrong++;
    for (uint32_t x = 0; x < n; x++)
      if (out[x] != (x == keep ? v[x] : 0)) kept_wrong++;
    /* Truncated: refused. A shorter clock length than the entries need: refused. */
    uint32_t cut = (uint32_t)rnd((unsigned)len);
    memcpy(out, base, n * sizeof *out);
    if (hrace__vc_decode(buf, cut, out, n, keep, false) >= 0) short_ok++;
    uint32_t last = 0;
    for (uint32_t x = 0; x < n; x++)
      if (v[x] != base[x] || x == keep) last = x + 1;
    if (last > 0 && hrace__vc_decode(buf, len, out, last - 1, keep, false) >= 0) short_ok++;
    /* Random bytes: whatever they say, the decoder stays within them and within n. */
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rnd(256);
    long r = hrace__vc_decode(buf, len, out, n, keep, false);
    if (r > (long)len) junk_bad++;
  }
  T.rng = save;
  is_int(0, wrong, "encoded clocks decode to themselves against their base (%ld clocks)", trials);
  is_int(0, kept_wrong, "without the base, the kept entry (the receiver's own) reads exactly, no other changes");
  is_int(0, sizes_wrong, "an encoding is 2 bytes plus its entries, never above HRACE_VC_ENC_MAX");
  is_int(0, short_ok, "truncated streams and entries beyond the clock are refused");
  is_int(0, junk_bad, "random bytes are never read beyond their end");
  /* The stencil case: after a base, a clock that advanced its own entry and learnt two
   * neighbours' costs a few bytes whatever the length. */
  for (uint32_t n = 64; n <= 100000; n *= 10) {
    hrace_clk_t *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
    uint8_t *e = malloc(HRACE_VC_ENC_MAX(n));
    for (uint32_t x = 0; x < n; x++) b[x] = c[x] = 1000 + x % 7;
    uint32_t me = n / 2;
    c[me] += 3, c[me - 1] += 2, c[me + 1] += 2;
    size_t len = hrace__vc_encode(e, 123456, c, n, b, n, me + 5);
    ok(len <= 18, "a stencil neighbour's clock at %u entries encodes in %zu bytes", n, len);
    free(b), free(c), free(e);
  }
}

int main(int argc, char **argv) {
  unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 24;
  int want = argc > 2 ? atoi(argv[2]) : 3000;
  time_t t0 = time(NULL);
  long asked = 0, yes = 0, differ = 0;
  int done = 0, bad_traces = 0;
  for (; done < want && time(NULL) - t0 < 30; done++) {
    trace(seed * 7919u + (unsigned)done, 0);
    asked += T.asked, yes += T.yes, differ += T.differ;
    if (T.differ && bad_traces++ < 3) diag("trace %d (seed %u) differs", done, seed);
  }
  diag("%d traces, %ld happens-before questions, %ld answered yes, %ld differ", done, asked, yes,
       differ);
  diag("%ld receives (%ld wildcard), %ld world and %ld sub-group collective ends, largest k %ld, "
       "%ld final clock entries implied by k", n_recv, n_wild, n_wend, n_subend, n_kmax, n_pruned);
  ok(done >= 500, "at least 500 traces in the time bound (%d)", done);
  ok(yes > asked / 10 && yes < asked - asked / 10, "both answers are common (%ld of %ld yes)",
     yes, asked);
  is_int(0, differ, "every happens-before answer of the epoch clocks equals the full vectors'");
  long bug_differ = 0;
  for (int i = 0; i < 200; i++) {
    trace(seed + 1000003u * (unsigned)i, 1);
    bug_differ += T.differ;
  }
  ok(bug_differ > 0, "a clock that claims one world collective too many is caught (%ld)", bug_differ);
  wire_roundtrip(seed);
  return tap_done();
}
