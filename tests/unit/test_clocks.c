/* Unit tests of src/clocks: vector clock algebra, the epoch happens-before test, and the
 * shadow cells' race check (reads vs writes, ordering through clocks, in-flight remote
 * operations and their completion, atomic classes, read sets, byte granularity). */
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

int main(void) {
  test_vc();
  test_protocol();
  test_shadow();
  return tap_done();
}
