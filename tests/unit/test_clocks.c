/* Unit tests of src/clocks: vector clock algebra, the epoch happens-before test, and the
 * shadow cells' race check (reads vs writes, ordering through clocks, in-flight remote
 * operations and their completion, atomic classes, read sets, byte granularity), and the
 * shadow's encoding: granules that split into halves and bytes as the accesses require,
 * keeping what was recorded, accesses straddling granules and the region's end, two regions
 * back to back, 16-byte and unaligned accesses, C11 atomics, synchronisation marks, and
 * threads splitting the same granules concurrently. */
#include <pthread.h>

#include "clocks/access.h"
#include "clocks/shadow.h"
#include "clocks/vc.h"
#include "tap.h"

/* ---- a collecting race sink ---- */
static struct { int n; hrace_aid_t now[32], prev[32]; uint64_t off[32], len[32]; } got;
static void sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  if (got.n < 32) {
    got.now[got.n] = now, got.prev[got.n] = prev, got.off[got.n] = off, got.len[got.n] = len;
  }
  got.n++;
}
static void reset(void) { got.n = 0; }

static hrace_aid_t acc(uint32_t exporter, hrace_clk_t clk, uint16_t flags, uint32_t cls) {
  hrace_access_t a = { .exporter = exporter, .flags = flags, .atomic_class = cls, .rank = (int)exporter };
  atomic_init(&a.clk, clk);
  return hrace__access_new(&a);
}

static hrace_vc_t vc3(hrace_clk_t a, hrace_clk_t b, hrace_clk_t c) {
  hrace_vc_t v;
  hrace__vc_init(&v, 3);
  v.c[0] = a, v.c[1] = b, v.c[2] = c;
  return v;
}

static void test_vc(void) {
  hrace_vc_t a = vc3(1, 2, 3), b = vc3(2, 2, 3), c = vc3(0, 5, 0), d;
  ok(hrace__vc_leq(&a, &b), "[1 2 3] <= [2 2 3]");
  ok(!hrace__vc_leq(&b, &a), "not [2 2 3] <= [1 2 3]");
  ok(hrace__vc_concurrent(&a, &c), "[1 2 3] || [0 5 0]");
  ok(!hrace__vc_concurrent(&a, &b), "ordered clocks are not concurrent");
  hrace__vc_init(&d, 0);
  hrace__vc_copy(&d, &a);
  hrace__vc_join(&d, &c);
  is_int(1, d.c[0], "join keeps the max of entry 0");
  is_int(5, d.c[1], "join keeps the max of entry 1");
  is_int(3, d.c[2], "join keeps the max of entry 2");
  hrace__vc_tick(&d, 1);
  is_int(6, d.c[1], "tick increments one entry");
  char buf[64];
  is_string("[1 6 3]", hrace__vc_format(&d, buf, sizeof buf), "format");
  /* epochs */
  ok(hrace__epoch_hb(1, 2, &a), "(1,2) happened before [1 2 3]");
  ok(!hrace__epoch_hb(1, 3, &a), "(1,3) did not happen before [1 2 3]");
  ok(!hrace__epoch_hb(7, 0, &a), "an exporter outside the clock orders nothing");
  ok(!hrace__epoch_hb(0, HRACE_CLK_INF, &d), "an in-flight epoch happened before nothing");
  hrace__vc_free(&a), hrace__vc_free(&b), hrace__vc_free(&c), hrace__vc_free(&d);
}

/* The signal / wait protocol on three processes, as the runtime uses it: a message from p0
 * to p1 orders p0's earlier accesses before p1's later ones, not p0's later ones, and the
 * order is transitive through p1 to p2. */
static void test_protocol(void) {
  hrace_vc_t p0 = vc3(0, 0, 0), p1 = vc3(0, 0, 0), p2 = vc3(0, 0, 0), msg;
  hrace__vc_init(&msg, 0);
  hrace_clk_t before = p0.c[0];           /* an access by p0 */
  hrace__vc_copy(&msg, &p0); hrace__vc_tick(&p0, 0);      /* p0 signals */
  hrace_clk_t after = p0.c[0];            /* a later access by p0 */
  hrace__vc_join(&p1, &msg);              /* p1 waits */
  ok(hrace__epoch_hb(0, before, &p1), "p0's access before its send is ordered before p1 after the receive");
  ok(!hrace__epoch_hb(0, after, &p1), "p0's access after its send is not");
  hrace__vc_copy(&msg, &p1); hrace__vc_tick(&p1, 1);
  hrace__vc_join(&p2, &msg);
  ok(hrace__epoch_hb(0, before, &p2), "transitive through a third process");
  ok(!hrace__epoch_hb(0, before, &p0) == 0, "program order within p0");
  hrace__vc_free(&p0), hrace__vc_free(&p1), hrace__vc_free(&p2), hrace__vc_free(&msg);
}

static void test_shadow(void) {
  hrace_shadow_t sh;
  is_int(0, hrace__shadow_init(&sh, 64), "shadow of 64 bytes");
  hrace_vc_t v0 = vc3(1, 0, 0), v1 = vc3(0, 1, 0), v1_after = vc3(1, 1, 0);

  /* A write by p0 at epoch 1, then a read by p1 that does not know it: race. */
  hrace_aid_t w0 = acc(0, 1, HRACE_ACC_WRITE, 0);
  reset();
  hrace__shadow_access(&sh, 0, 4, w0, &v0, sink, NULL);
  is_int(0, got.n, "first write: nothing to race with");
  hrace_aid_t r1 = acc(1, 1, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 0, 4, r1, &v1, sink, NULL);
  is_int(1, got.n, "unordered read after write: one race");
  ok(got.now[0] == r1 && got.prev[0] == w0, "the race names the read and the write");
  is_int(0, got.off[0], "at offset 0");
  is_int(4, got.len[0], "over 4 bytes (one report for the 4 bytes)");

  /* The same read again in the same segment finds itself recorded: nothing to do (the pair
   * was reported the first time). */
  reset();
  hrace__shadow_access(&sh, 0, 4, r1, &v1, sink, NULL);
  is_int(0, got.n, "a repeated read in the same segment reports nothing new");

  /* A read by p1 that knows the write: no race. */
  reset();
  hrace_aid_t r1b = acc(1, 2, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 0, 4, r1b, &v1_after, sink, NULL);
  is_int(0, got.n, "a read ordered after the write: no race");

  /* A write by p2 that knows nothing: races with the write? No - the last write is w0, and
   * the reads r1 (unordered) and r1b: it must race with w0, r1 and r1b. */
  reset();
  hrace_vc_t v2 = vc3(0, 0, 1);
  hrace_aid_t w2 = acc(2, 1, HRACE_ACC_WRITE, 0);
  hrace__shadow_access(&sh, 0, 4, w2, &v2, sink, NULL);
  is_int(2, got.n, "a write unordered with the last write and the reads since");
  /* r1 was dropped from the read set when r1b (ordered after it by program order) read. */

  /* Byte granularity: neighbouring ints don't race. */
  reset();
  hrace_aid_t wa = acc(0, 1, HRACE_ACC_WRITE, 0), wb = acc(1, 1, HRACE_ACC_WRITE, 0);
  hrace__shadow_access(&sh, 16, 4, wa, &v0, sink, NULL);
  hrace__shadow_access(&sh, 20, 4, wb, &v1, sink, NULL);
  is_int(0, got.n, "writes to neighbouring ints by two processes: no race");
  hrace__shadow_access(&sh, 22, 4, wa, &v0, sink, NULL);
  is_int(1, got.n, "an overlapping write: race");
  is_int(22, got.off[0], "reported where they overlap");
  is_int(2, got.len[0], "over the 2 shared bytes");

  /* In-flight remote operation: concurrent with everything until completed. */
  reset();
  hrace_aid_t put = acc(0, HRACE_CLK_INF, HRACE_ACC_WRITE | HRACE_ACC_REMOTE, 0);
  hrace__shadow_access(&sh, 32, 8, put, &v0, sink, NULL);
  hrace_vc_t late = vc3(50, 50, 50);
  hrace_aid_t rd = acc(1, 50, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 32, 8, rd, &late, sink, NULL);
  is_int(1, got.n, "a read while the put is in flight races, whatever the reader knows");
  hrace__access_complete(hrace__access_get(put), 3);
  reset();
  hrace_aid_t rd2 = acc(1, 51, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 32, 8, rd2, &late, sink, NULL);
  is_int(0, got.n, "after completion at epoch 3, a reader that knows epoch 50 is ordered");
  hrace_vc_t early = vc3(2, 60, 0);
  hrace_aid_t rd3 = acc(1, 60, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 32, 8, rd3, &early, sink, NULL);
  is_int(1, got.n, "a reader that knows only epoch 2 is not");

  /* Atomic classes: same class doesn't race, different class does, plain access does. */
  reset();
  hrace_aid_t a1 = acc(0, 1, HRACE_ACC_READ | HRACE_ACC_WRITE | HRACE_ACC_ATOMIC | HRACE_ACC_REMOTE, 7);
  hrace_aid_t a2 = acc(1, 1, HRACE_ACC_READ | HRACE_ACC_WRITE | HRACE_ACC_ATOMIC | HRACE_ACC_REMOTE, 7);
  hrace_aid_t a3 = acc(2, 1, HRACE_ACC_READ | HRACE_ACC_WRITE | HRACE_ACC_ATOMIC | HRACE_ACC_REMOTE, 9);
  hrace__shadow_access(&sh, 48, 4, a1, &v0, sink, NULL);
  hrace__shadow_access(&sh, 48, 4, a2, &v1, sink, NULL);
  is_int(0, got.n, "two accumulates of the same class: no race");
  hrace__shadow_access(&sh, 48, 4, a3, &v2, sink, NULL);
  ok(got.n >= 1, "an accumulate of another datatype races");

  /* Concurrent readers are all kept: a later write races with each. */
  reset();
  hrace_aid_t q0 = acc(0, 1, HRACE_ACC_READ, 0), q1 = acc(1, 1, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 56, 1, q0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 56, 1, q1, &v1, sink, NULL);
  hrace__shadow_access(&sh, 56, 1, w2, &v2, sink, NULL);
  is_int(2, got.n, "a write after two concurrent reads races with both");

  /* Out of range is ignored. */
  reset();
  hrace__shadow_access(&sh, 62, 8, w0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 100, 8, w0, &v0, sink, NULL);
  is_int(0, got.n, "bytes beyond the region are ignored");
  hrace__shadow_free(&sh);
}

/* Did the last batch report exactly one race with `prev` over [off, off + len)? */
static int one_race(hrace_aid_t prev, uint64_t off, uint64_t len) {
  return got.n == 1 && got.prev[0] == prev && got.off[0] == off && got.len[0] == len;
}
static void show(void) {
  for (int i = 0; i < got.n && i < 32; i++)
    diag("race %d: now %u prev %u off %llu len %llu", i, got.now[i], got.prev[i],
         (unsigned long long)got.off[i], (unsigned long long)got.len[i]);
}

/* Granularity follows the access size, and a granule that gets finer keeps its state. */
static void test_granules(void) {
  hrace_shadow_t sh;
  is_int(0, hrace__shadow_init(&sh, 256), "shadow of 256 bytes");
  hrace_vc_t v0 = vc3(1, 0, 0), v1 = vc3(0, 1, 0), v2 = vc3(0, 0, 1);
  uint64_t words, b2, b8;

  /* Doubles: one cell per granule, no blocks. */
  hrace_aid_t wd = acc(0, 1, HRACE_ACC_WRITE, 0);
  reset();
  for (uint64_t o = 0; o < 64; o += 8) hrace__shadow_access(&sh, o, 8, wd, &v0, sink, NULL);
  hrace__shadow_usage(&sh, &words, &b2, &b8);
  is_int(32, words, "32 granule words for 256 bytes");
  ok(b2 == 0 && b8 == 0, "8-byte accesses split nothing (%llu, %llu blocks)",
     (unsigned long long)b2, (unsigned long long)b8);

  /* Ints by two processes, alternating: no race, halves only. */
  hrace_aid_t i0 = acc(0, 1, HRACE_ACC_WRITE, 0), i1 = acc(1, 1, HRACE_ACC_WRITE, 0);
  reset();
  for (uint64_t o = 64; o < 128; o += 8) {
    hrace__shadow_access(&sh, o, 4, i0, &v0, sink, NULL);
    hrace__shadow_access(&sh, o + 4, 4, i1, &v1, sink, NULL);
  }
  is_int(0, got.n, "neighbouring ints written by two processes: no race");
  hrace__shadow_usage(&sh, &words, &b2, &b8);
  ok(b2 == 8 && b8 == 0, "4-byte accesses split 8 granules into halves (%llu, %llu blocks)",
     (unsigned long long)b2, (unsigned long long)b8);
  /* The halves kept their writers. */
  hrace_aid_t r2 = acc(2, 1, HRACE_ACC_READ, 0);
  reset();
  hrace__shadow_access(&sh, 64, 8, r2, &v2, sink, NULL);
  is_int(2, got.n, "an unordered 8-byte read over two ints races with both writers");
  ok((got.prev[0] == i0 && got.off[0] == 64 && got.len[0] == 4 && got.prev[1] == i1 &&
      got.off[1] == 68 && got.len[1] == 4) ||
     (got.prev[1] == i0 && got.off[1] == 64 && got.len[1] == 4 && got.prev[0] == i1 &&
      got.off[0] == 68 && got.len[0] == 4), "each over its own 4 bytes");

  /* Bytes by two processes: no race; a short over both races with both. */
  hrace_aid_t c0 = acc(0, 1, HRACE_ACC_WRITE, 0), c1 = acc(1, 1, HRACE_ACC_WRITE, 0);
  reset();
  hrace__shadow_access(&sh, 128, 1, c0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 129, 1, c1, &v1, sink, NULL);
  is_int(0, got.n, "neighbouring bytes written by two processes: no race");
  hrace_aid_t s2 = acc(2, 1, HRACE_ACC_WRITE, 0);
  hrace__shadow_access(&sh, 128, 2, s2, &v2, sink, NULL);
  is_int(2, got.n, "a 2-byte write over both bytes races with both writers");

  /* A granule written whole, then read by halves, then written by bytes: what each step
   * recorded survives the splits. */
  hrace_aid_t w8 = acc(0, 1, HRACE_ACC_WRITE, 0), rh = acc(1, 1, HRACE_ACC_READ, 0);
  reset();
  hrace__shadow_access(&sh, 136, 8, w8, &v0, sink, NULL);
  hrace__shadow_access(&sh, 136, 4, rh, &v1, sink, NULL);
  ok(one_race(w8, 136, 4), "a 4-byte read of a granule written whole races over 4 bytes");
  reset();
  hrace_aid_t wb = acc(2, 1, HRACE_ACC_WRITE, 0);
  hrace__shadow_access(&sh, 141, 1, wb, &v2, sink, NULL);
  ok(one_race(w8, 141, 1), "a byte write into the other half meets only the whole write");
  show();
  reset();
  hrace_aid_t wb2 = acc(2, 2, HRACE_ACC_WRITE, 0);
  hrace__shadow_access(&sh, 137, 1, wb2, &v2, sink, NULL);
  is_int(2, got.n, "a byte write into the read half meets the write and the read");
  reset();
  hrace__shadow_access(&sh, 136, 4, rh, &v1, sink, NULL);
  ok(got.n == 1 && got.prev[0] == wb2 && got.off[0] == 137 && got.len[0] == 1,
     "the same read again meets only the new byte write");
  show();

  /* Unaligned and 16-byte accesses. */
  hrace_aid_t u0 = acc(0, 1, HRACE_ACC_WRITE, 0), u1 = acc(1, 1, HRACE_ACC_READ, 0);
  reset();
  hrace__shadow_access(&sh, 148, 8, u0, &v0, sink, NULL);      /* straddles 144 | 152 */
  hrace__shadow_access(&sh, 144, 4, u1, &v1, sink, NULL);
  is_int(0, got.n, "an unaligned 8-byte write leaves the 4 bytes before it alone");
  hrace__shadow_access(&sh, 152, 8, u1, &v1, sink, NULL);
  ok(one_race(u0, 152, 4), "and is found in the next granule over its 4 bytes there");
  hrace_aid_t x0 = acc(0, 1, HRACE_ACC_WRITE, 0), x1 = acc(1, 1, HRACE_ACC_READ, 0);
  reset();
  hrace__shadow_access(&sh, 160, 16, x0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 172, 4, x1, &v1, sink, NULL);
  ok(one_race(x0, 172, 4), "a 4-byte read inside a 16-byte write races over its 4 bytes");
  reset();
  hrace_aid_t x2 = acc(2, 1, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 166, 16, x2, &v2, sink, NULL);     /* unaligned 16 bytes */
  ok(got.n == 1 && got.prev[0] == x0 && got.off[0] == 166 && got.len[0] == 10,
     "an unaligned 16-byte read meets the write over the 10 bytes they share");
  show();

  /* C11 atomics: one class per width; atomic vs atomic of the same width doesn't race,
   * atomic vs plain and atomics of different widths do. */
  const uint16_t AW = HRACE_ACC_WRITE | HRACE_ACC_ATOMIC, ARMW = AW | HRACE_ACC_READ;
  hrace_aid_t a0 = acc(0, 1, ARMW, 0xA7000004u), a1 = acc(1, 1, AW, 0xA7000004u);
  reset();
  hrace__shadow_access(&sh, 184, 4, a0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 184, 4, a1, &v1, sink, NULL);
  is_int(0, got.n, "two atomic updates of one int by two processes: no race");
  hrace_aid_t a2 = acc(2, 1, HRACE_ACC_READ, 0);
  hrace__shadow_access(&sh, 184, 4, a2, &v2, sink, NULL);
  ok(one_race(a1, 184, 4), "a plain read of it races with the last atomic write");
  hrace_aid_t a8 = acc(2, 2, HRACE_ACC_READ | HRACE_ACC_ATOMIC, 0xA7000008u);
  reset();
  hrace__shadow_access(&sh, 184, 8, a8, &v2, sink, NULL);
  ok(got.n == 1 && got.prev[0] == a1, "an 8-byte atomic load over it races (another width)");

  /* Synchronisation marks: not checked, not recorded, until cleared. */
  hrace_aid_t f0 = acc(0, 1, HRACE_ACC_WRITE, 0), f1 = acc(1, 1, HRACE_ACC_WRITE, 0);
  hrace__shadow_mark_sync(&sh, 196, 4);                          /* half of a granule */
  reset();
  hrace__shadow_access(&sh, 196, 4, f0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 196, 4, f1, &v1, sink, NULL);
  hrace__shadow_access(&sh, 192, 8, f1, &v1, sink, NULL);
  hrace__shadow_access(&sh, 192, 8, f0, &v0, sink, NULL);
  ok(got.n == 1 && got.off[0] == 192 && got.len[0] == 4,
     "writes to a marked int don't race; the unmarked half of the granule does");
  hrace__shadow_clear(&sh, 192, 8);
  reset();
  hrace__shadow_access(&sh, 196, 4, f0, &v0, sink, NULL);
  hrace__shadow_access(&sh, 196, 4, f1, &v1, sink, NULL);
  is_int(1, got.n, "after a clear the int is checked again");
  hrace__shadow_free(&sh);
}

/* A region whose size is not a multiple of 8, and two regions back to back. */
static void test_edges(void) {
  hrace_shadow_t a, b;
  hrace__shadow_init(&a, 12);
  hrace__shadow_init(&b, 12);
  hrace_vc_t v0 = vc3(1, 0, 0), v1 = vc3(0, 1, 0);
  hrace_aid_t w0 = acc(0, 1, HRACE_ACC_WRITE, 0), w1 = acc(1, 1, HRACE_ACC_WRITE, 0);
  uint64_t words, b2, b8;
  reset();
  hrace__shadow_access(&a, 8, 8, w0, &v0, sink, NULL);           /* straddles the end */
  hrace__shadow_usage(&a, &words, &b2, &b8);
  ok(b2 == 0 && b8 == 0, "an access covering the short last granule splits nothing");
  hrace__shadow_access(&a, 10, 4, w1, &v1, sink, NULL);
  ok(one_race(w0, 10, 2), "a write straddling the end races over the 2 bytes inside");
  /* The last bytes of a and the first of b, as the access slow path splits an access that
   * spans two windows: each region only sees its part. */
  reset();
  hrace__shadow_access(&a, 8, 4, w1, &v1, sink, NULL);
  hrace__shadow_access(&b, 0, 4, w1, &v1, sink, NULL);
  hrace__shadow_access(&b, 0, 4, w0, &v0, sink, NULL);
  is_int(2, got.n, "back to back: the write races once in each region");
  ok(got.off[got.n - 1] == 0 && got.len[got.n - 1] == 4, "at the start of the second region");
  reset();
  hrace__shadow_access(&b, 4, 8, w0, &v0, sink, NULL);
  is_int(0, got.n, "the rest of the second region is untouched by the first's accesses");
  hrace__shadow_free(&a);
  hrace__shadow_free(&b);
}

/* Threads splitting the same granules at once: each writes its own byte of every granule (a
 * granule is split into halves by the int writers and into bytes by the byte writers while
 * the others update it). Nothing races, and no update is lost in a split. */
#define NT 5
#define NG 512
static hrace_shadow_t stress_sh;
static hrace_aid_t stress_id[NT];
static hrace_vc_t stress_vc[NT];
static _Atomic int stress_races;
static void stress_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  atomic_fetch_add(&stress_races, 1);
}
/* Thread k < 4 writes byte k of each granule (splitting it into bytes), thread 4 the int in
 * its upper half (splitting it into halves when it comes first). */
static void *stress(void *arg) {
  int k = (int)(intptr_t)arg;
  for (int rep = 0; rep < 20; rep++)
    for (uint64_t g = 0; g < NG; g++)
      hrace__shadow_access(&stress_sh, 8 * g + (uint64_t)k, k < 4 ? 1 : 4, stress_id[k],
                           &stress_vc[k], stress_sink, NULL);
  return NULL;
}
static void test_concurrent(void) {
  hrace__shadow_init(&stress_sh, 8 * NG);
  for (int k = 0; k < NT; k++) {
    hrace__vc_init(&stress_vc[k], NT + 1);
    stress_vc[k].c[k] = 1;
    stress_id[k] = acc((uint32_t)k, 1, HRACE_ACC_WRITE, 0);
  }
  /* Start from granules written whole (and ints read) by an earlier, ordered process, so the
   * splits have a state to carry. */
  hrace_vc_t v6;
  hrace__vc_init(&v6, NT + 1);
  v6.c[NT] = 1;
  hrace_aid_t first = acc(NT, 1, HRACE_ACC_WRITE, 0);
  for (uint64_t g = 0; g < NG; g++) hrace__shadow_access(&stress_sh, 8 * g, 8, first, &v6, stress_sink, NULL);
  for (int k = 0; k < NT; k++) stress_vc[k].c[NT] = 1;            /* all know it */
  /* Half of the granules are split into halves before the threads start: the byte writers
   * then split those into bytes while thread 4 updates the halves. */
  for (uint64_t g = 0; g < NG; g += 2)
    hrace__shadow_access(&stress_sh, 8 * g + 4, 4, stress_id[4], &stress_vc[4], stress_sink, NULL);
  pthread_t th[NT];
  for (int k = NT; k-- > 0;) pthread_create(&th[k], NULL, stress, (void *)(intptr_t)k);
  for (int k = 0; k < NT; k++) pthread_join(th[k], NULL);
  is_int(0, atomic_load(&stress_races), "threads writing their own bytes of shared granules: no race");
  /* Every byte's last writer is its thread: a reader that knows nobody meets exactly it. */
  hrace_vc_t vr;
  hrace__vc_init(&vr, NT + 1);
  int bad = 0;
  for (uint64_t g = 0; g < NG && !bad; g++)
    for (unsigned i = 0; i < 8; i++) {
      hrace_aid_t r = acc(NT, 2, HRACE_ACC_READ, 0);
      int k = i < 4 ? (int)i : 4;
      reset();
      hrace__shadow_access(&stress_sh, 8 * g + i, 1, r, &vr, sink, NULL);
      if (!one_race(stress_id[k], 8 * g + i, 1)) {
        diag("granule %llu byte %u: %d races, prev %u (wanted %u)", (unsigned long long)g, i,
             got.n, got.n ? got.prev[0] : 0, stress_id[k]);
        bad = 1;
        break;
      }
    }
  ok(!bad, "no update was lost while the granules were split");
  uint64_t words, b2, b8;
  hrace__shadow_usage(&stress_sh, &words, &b2, &b8);
  diag("%llu granules: %llu split into halves first, %llu into bytes", (unsigned long long)words,
       (unsigned long long)b2, (unsigned long long)b8);
  hrace__shadow_free(&stress_sh);
}

int main(void) {
  test_vc();
  test_protocol();
  test_shadow();
  test_granules();
  test_edges();
  test_concurrent();
  return tap_done();
}
