/* Unit tests of the first-touch memo as full mode's fast path uses it (access/full.c,
 * full_fast; clocks/shadow.h, hrace__shadow_memo and hrace__shadow_replace): an 8- or 16-byte
 * access whose granules hold the state the memo's first way answers for is recorded with one
 * store under the chunk's lock, without asking the shadow; anything else goes to
 * hrace__shadow_access. The verdicts must be those of the general path: same thread across
 * segments, another thread ordered after the previous access and one that is not, and no
 * write undone by a concurrent store. */
#include <pthread.h>

#include "clocks/access.h"
#include "clocks/shadow.h"
#include "clocks/vc.h"
#include "tap.h"

static struct { int n; hrace_aid_t prev[64]; uint64_t off[64]; } got;
static void sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  if (got.n < 64) got.prev[got.n] = prev, got.off[got.n] = off;
  got.n++;
}
static void reset(void) { got.n = 0; }
static int has_prev(hrace_aid_t prev) {
  for (int i = 0; i < got.n && i < 64; i++)
    if (got.prev[i] == prev) return 1;
  return 0;
}

static hrace_aid_t lacc(uint32_t t, hrace_clk_t clk, uint16_t flags) {
  hrace_access_t a = { .exporter = t, .flags = flags | HRACE_ACC_LOCALCLK };
  atomic_init(&a.clk, clk);
  return hrace__access_new(&a);
}

typedef struct { hrace_vc_t g, l; } view_t;
static void view(view_t *v, uint32_t t, hrace_clk_t clk) {
  hrace__vc_init(&v->g, 0);
  hrace__vc_init(&v->l, 8);
  v->l.c[t] = clk;
  v->g.local = &v->l;
}
static void view_free(view_t *v) {
  hrace__vc_free(&v->g);
  hrace__vc_free(&v->l);
}

/* full_fast's use of the shadow: the memo's first way and hrace__shadow_replace (1: taken). */
static int via_memo(hrace_shadow_t *sh, uint64_t off, unsigned len, hrace_aid_t id,
                    const view_t *v) {
  const hrace_shadow_memo_t *m = &hrace__shadow_memo[id % HRACE_SHADOW_MEMO][0];
  const _Atomic uint64_t *gw = hrace__shadow_granules(sh) + off / 8;
  const uint64_t w = atomic_load(&gw[0]);
  return m->id == id && m->l == &v->l && m->v == w && (len == 8 || atomic_load(&gw[1]) == w) &&
         (m->next == w || hrace__shadow_replace(sh, off / 8, len / 8, w, m->next));
}
/* One access as full mode makes it; counts the ones the memo took. */
static _Thread_local int memo_hits;
static void access1(hrace_shadow_t *sh, uint64_t off, unsigned len, hrace_aid_t id,
                    const view_t *v, hrace_race_sink_t s, void *ctx) {
  if (via_memo(sh, off, len, id, v)) {
    memo_hits++;
    return;
  }
  hrace__shadow_access(sh, off, len, id, &v->g, s, ctx);
}

#define SZ 8192                      /* two chunk locks' worth */
static void test_verdicts(void) {
  hrace_shadow_t sh;
  hrace__shadow_init(&sh, SZ);
  view_t t0, t1, t2;
  view(&t0, 0, 1);
  view(&t1, 1, 1);
  view(&t2, 2, 1);

  /* Thread 0, two segments of 16-byte writes over the whole region (a barrier-less sweep). */
  hrace_aid_t w1 = lacc(0, 1, HRACE_ACC_WRITE);
  reset();
  for (uint64_t off = 0; off < SZ; off += 16) access1(&sh, off, 16, w1, &t0, sink, NULL);
  t0.l.c[0] = 2;
  hrace_aid_t w2 = lacc(0, 2, HRACE_ACC_WRITE);
  memo_hits = 0;
  for (uint64_t off = 0; off < SZ; off += 16) access1(&sh, off, 16, w2, &t0, sink, NULL);
  is_int(0, got.n, "same thread, two segments: no race");
  ok(memo_hits >= SZ / 16 - 2, "the second segment's writes came from the memo (%d of %d)",
     memo_hits, SZ / 16);

  /* Thread 1, ordered after the second segment, reads everything in 8-byte pieces. */
  t1.l.c[0] = 2;
  hrace_aid_t r1 = lacc(1, 1, HRACE_ACC_READ);
  memo_hits = 0;
  reset();
  for (uint64_t off = 0; off < SZ; off += 8) access1(&sh, off, 8, r1, &t1, sink, NULL);
  is_int(0, got.n, "another thread ordered after the writes: no race");
  ok(memo_hits >= SZ / 8 - 2, "its reads came from the memo (%d of %d)", memo_hits, SZ / 8);

  /* Thread 0 writes again not knowing those reads: each granule's recorded read races. */
  t0.l.c[0] = 3;
  hrace_aid_t w3 = lacc(0, 3, HRACE_ACC_WRITE);
  int missed = 0;
  memo_hits = 0;
  for (uint64_t off = 0; off < SZ; off += 8) {
    reset();
    access1(&sh, off, 8, w3, &t0, sink, NULL);
    missed += !(got.n == 1 && got.prev[0] == r1 && got.off[0] == off);
  }
  is_int(0, missed, "the reads the memo recorded race with a later unordered write at every granule");
  is_int(0, memo_hits, "no unordered answer came from the memo");

  /* Thread 2, knowing nobody, reads: each granule's write (recorded through the general path
   * after its race) races; again nothing from the memo. */
  hrace_aid_t r2 = lacc(2, 1, HRACE_ACC_READ);
  missed = 0;
  memo_hits = 0;
  for (uint64_t off = 0; off < SZ; off += 16) {
    reset();
    access1(&sh, off, 16, r2, &t2, sink, NULL);
    missed += !(got.n == 1 && got.prev[0] == w3);
  }
  is_int(0, missed, "an unordered reader meets the write at every granule");
  is_int(0, memo_hits, "an unordered reader gets nothing from the memo");

  /* The same reader after it learnt of the write: no race; the memo answers from the
   * second granule on, and a third thread knowing nobody still meets the write. */
  t2.l.c[0] = 3, t2.l.c[2] = 2;
  hrace_aid_t r3 = lacc(2, 2, HRACE_ACC_READ);
  memo_hits = 0;
  reset();
  for (uint64_t off = 0; off < SZ; off += 16) access1(&sh, off, 16, r3, &t2, sink, NULL);
  is_int(0, got.n, "the reader after it learnt of the write: no race");
  view_t t3;
  view(&t3, 3, 1);
  reset();
  hrace__shadow_access(&sh, 0, SZ, lacc(3, 1, HRACE_ACC_WRITE), &t3.g, sink, NULL);
  ok(has_prev(r3) && has_prev(w3) && got.n == 2,
     "a writer knowing nobody meets both the read and the write (%d pairs)", got.n);
  view_free(&t0), view_free(&t1), view_free(&t2), view_free(&t3);
  hrace__shadow_free(&sh);
}

/* Lost writes: a reader ordered with a writer stores through the memo while the writer rewrites
 * the region with ranges (each chunk's lock held over 512 granules) or with single accesses of
 * its own through the memo; after each round a read that knows nobody must find the round's
 * write in every granule (a store from a state read before the write would put the previous
 * one back). With hrace__shadow_replace's check of the granules under the lock removed, one of
 * the two failed in 2 of 3 runs on the loaded 2-core VM (it needs the threads to overlap). */
#define ROUNDS 600
static hrace_shadow_t lsh;
static pthread_barrier_t bar;
static hrace_aid_t round_write[ROUNDS];
static _Atomic int ordered_races;
static int writer_singles;
static void count_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  atomic_fetch_add((_Atomic int *)ctx, 1);
}
static void *reader(void *arg) {
  view_t v;
  view(&v, 0, 1);
  v.l.c[1] = v.l.c[2] = (hrace_clk_t)1 << 30;     /* knows every write and probe */
  hrace_clk_t s = 1;
  for (int r = 0; r < ROUNDS; r++) {
    pthread_barrier_wait(&bar);
    for (int k = 0; k < 32; k++, s++) {
      v.l.c[0] = s;
      hrace_aid_t a = lacc(0, s, HRACE_ACC_READ);
      for (uint64_t off = 0; off < SZ; off += 16) access1(&lsh, off, 16, a, &v, count_sink, &ordered_races);
    }
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);                   /* main checks */
  }
  view_free(&v);
  return NULL;
}
static void *writer(void *arg) {
  view_t v;
  view(&v, 1, 1);
  v.l.c[0] = v.l.c[2] = (hrace_clk_t)1 << 30;     /* knows every read and probe */
  for (int r = 0; r < ROUNDS; r++) {
    pthread_barrier_wait(&bar);
    for (int k = 0; k < 32; k++) {
      hrace_clk_t s = (hrace_clk_t)r * 32 + k + 1;
      v.l.c[1] = s;
      round_write[r] = lacc(1, s, HRACE_ACC_WRITE);
      if (writer_singles)
        for (uint64_t off = 0; off < SZ; off += 8) access1(&lsh, off, 8, round_write[r], &v, count_sink, &ordered_races);
      else
        hrace__shadow_access(&lsh, 0, SZ, round_write[r], &v.g, count_sink, &ordered_races);
    }
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
  }
  view_free(&v);
  return NULL;
}
static void lost_writes(int singles, const char *what) {
  writer_singles = singles;
  hrace__shadow_init(&lsh, SZ);
  atomic_store(&ordered_races, 0);
  pthread_barrier_init(&bar, NULL, 3);
  pthread_t a, b;
  pthread_create(&a, NULL, reader, NULL);
  pthread_create(&b, NULL, writer, NULL);
  view_t v;
  view(&v, 2, 1);
  int lost = 0;
  for (int r = 0; r < ROUNDS; r++) {
    pthread_barrier_wait(&bar);
    pthread_barrier_wait(&bar);
    for (uint64_t off = 0; off < SZ; off += 8) {
      reset();
      hrace__shadow_access(&lsh, off, 8, lacc(2, (hrace_clk_t)r + 1, HRACE_ACC_READ), &v.g, sink, NULL);
      if (!has_prev(round_write[r])) lost++;
    }
    pthread_barrier_wait(&bar);
  }
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  is_int(0, atomic_load(&ordered_races), "%s: ordered reader and writer, no race", what);
  is_int(0, lost, "%s: no write undone by the reader's memo stores (%d rounds)", what, ROUNDS);
  view_free(&v);
  pthread_barrier_destroy(&bar);
  hrace__shadow_free(&lsh);
}

int main(void) {
  test_verdicts();
  lost_writes(0, "writer's ranges");
  lost_writes(1, "writer's single accesses");
  return tap_done();
}
