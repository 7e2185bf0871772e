/* Unit tests of src/clocks/eclock: epoch clocks (k, sparse entries). The happens-before test
 * before and after a world collective, joins that merge and prune, an exporter's own epoch,
 * exporters of class NEVER, and the wire: each of the three forms round-trips, the encoder
 * picks the shortest, the dense bound (4 x nexp + 5), and malformed input is refused. */
#include <stdlib.h>
#include <string.h>

#include "clocks/eclock.h"
#include "tap.h"

static bool same(const hrace_ec_t *a, const hrace_ec_t *b) {
  if (a->k != b->k || a->len != b->len) return false;
  for (uint32_t i = 0; i < a->len; i++)
    if (a->e[i].x != b->e[i].x || a->e[i].g != b->e[i].g || a->e[i].n != b->e[i].n) return false;
  return true;
}

static bool roundtrip(const hrace_ec_t *c, uint32_t base, uint32_t nexp, size_t *bytes) {
  uint8_t *buf = malloc(hrace__ec_encode_max(nexp, c->len));
  size_t n = hrace__ec_encode(c, 0, base, nexp, buf);
  hrace_ec_t d;
  hrace__ec_init(&d);
  bool r = n == hrace__ec_encode(c, 0, base, nexp, NULL) && hrace__ec_decode(&d, buf, n, base, nexp) &&
           same(c, &d);
  if (bytes) *bytes = n;
  hrace__ec_free(&d);
  free(buf);
  return r;
}

static void test_basics(void) {
  hrace_ec_proc_t a, b;
  hrace__ec_proc_init(&a, 0, false);
  hrace__ec_proc_init(&b, 1, false);
  uint32_t ag = a.g, an = a.n;        /* an access of a before anything */
  ok(hrace__ec_hb(0, ag, an, &a.clk), "an exporter's own epoch is known to its clock");
  ok(!hrace__ec_hb(0, ag, an, &b.clk), "and not to another's");
  /* a sends to b */
  hrace_ec_t msg;
  hrace__ec_init(&msg);
  hrace__ec_copy(&msg, &a.clk);
  hrace__ec_tick(&a);
  hrace__ec_join(&b.clk, &msg);
  ok(hrace__ec_hb(0, ag, an, &b.clk), "the receiver knows the sender's epoch at the send");
  ok(!hrace__ec_hb(0, a.g, a.n, &b.clk), "but not the sender's next epoch");
  is_int(2, b.clk.len, "the receiver holds two sparse entries");
  /* a world collective: both start (contributions), both end */
  hrace_ec_t ca, cb;
  hrace__ec_init(&ca), hrace__ec_init(&cb);
  uint32_t a2g = a.g, a2n = a.n;
  hrace__ec_world_start(&a, 1, &ca);
  hrace__ec_world_start(&b, 1, &cb);
  is_int(1, a.g, "starting world collective 1 makes the epoch (1, 0)");
  is_int(0, a.n, "n restarts");
  ok(!hrace__ec_hb(0, a2g, a2n, &b.clk), "before the end, b does not know a's last epoch");
  hrace__ec_world_end(&a, 1);
  hrace__ec_world_end(&b, 1);
  ok(hrace__ec_hb(0, a2g, a2n, &b.clk), "after it b knows every epoch of a with g < 1");
  is_int(1, b.clk.k, "k is 1");
  is_int(1, b.clk.len, "and only b's own entry stays sparse");
  ok(!hrace__ec_hb(0, a.g, a.n, &b.clk), "a's epoch after the start is not known");
  /* nonblocking: a starts 2 and does something, b finishes 2 only after a's start; a's events
   * between its start and end are (2, n): not covered by k = 2 */
  hrace__ec_world_start(&a, 2, NULL);
  hrace__ec_tick(&a);
  hrace__ec_world_start(&b, 2, NULL);
  hrace__ec_world_end(&b, 2);
  ok(!hrace__ec_hb(0, a.g, a.n, &b.clk), "events after the start of a nonblocking collective stay unordered");
  ok(hrace__ec_hb(0, 1, 0, &b.clk), "events before it are ordered");
  hrace__ec_free(&ca), hrace__ec_free(&cb), hrace__ec_free(&msg);
  hrace__ec_proc_free(&a), hrace__ec_proc_free(&b);
}

static void test_never(void) {
  hrace_ec_proc_t t, r;
  hrace__ec_proc_init(&t, 5, true);
  hrace__ec_proc_init(&r, 1, false);
  hrace__ec_join(&r.clk, &t.clk);
  hrace__ec_world_start(&r, 1, NULL);
  hrace__ec_world_end(&r, 1);
  ok(hrace__ec_hb(5, t.g, t.n, &r.clk), "a NEVER exporter's entry survives a world collective");
  ok(hrace__ec_find(&r.clk, 5) != NULL, "as a sparse entry");
  hrace__ec_world_start(&t, 1, NULL);
  ok(t.g == HRACE_EC_G_NEVER && t.n == 1, "a NEVER exporter's start is a plain tick");
  ok(!hrace__ec_hb(5, t.g, t.n, &r.clk), "whose later epoch is not covered");
  size_t n;
  ok(roundtrip(&r.clk, 1, 8, &n), "a NEVER entry round-trips");
  hrace__ec_proc_free(&t), hrace__ec_proc_free(&r);
}

static void test_join_prune(void) {
  hrace_ec_t a, b;
  hrace__ec_init(&a), hrace__ec_init(&b);
  hrace__ec_set(&a, 3, 0, 4);
  hrace__ec_set(&a, 7, 1, 2);
  hrace__ec_set(&a, 9, 2, 0);
  hrace__ec_set(&b, 1, 1, 1);
  hrace__ec_set(&b, 7, 1, 5);
  hrace__ec_set(&b, 9, 1, 9);
  b.k = 1;
  hrace__ec_set(&b, 3, 0, 9);     /* below k: implied, not stored */
  is_int(3, b.len, "set below k stores nothing");
  hrace__ec_join(&a, &b);
  is_int(1, a.k, "join takes the larger k");
  is_int(3, a.len, "and drops what it implies (3's entry had g 0)");
  ok(a.e[0].x == 1 && a.e[1].x == 7 && a.e[2].x == 9, "entries stay sorted");
  ok(a.e[1].n == 5 && a.e[2].g == 2 && a.e[2].n == 0, "each the later of the two");
  hrace_ec_t c;
  hrace__ec_init(&c);
  hrace__ec_copy(&c, &a);
  hrace__ec_join(&c, &b);
  ok(same(&c, &a), "joining what is known changes nothing");
  hrace__ec_know(&a, 2);
  is_int(1, a.len, "knowing collective 2 leaves only entries with g >= 2");
  ok(hrace__ec_hb(7, 1, 100, &a), "covered by k");
  ok(!hrace__ec_hb(9, 2, 1, &a) && hrace__ec_hb(9, 2, 0, &a), "entry 9 answers by its value");
  hrace__ec_free(&a), hrace__ec_free(&b), hrace__ec_free(&c);
}

static void test_wire(void) {
  hrace_ec_t c;
  hrace__ec_init(&c);
  c.k = 40;
  hrace__ec_set(&c, 100, 40, 3);
  hrace__ec_set(&c, 101, 41, 0);
  hrace__ec_set(&c, 132, 40, 300);
  hrace__ec_set(&c, 68, 44, 1);              /* g - k > 1: explicit */
  hrace__ec_set(&c, 99, HRACE_EC_G_NEVER, 7);
  size_t n;
  ok(roundtrip(&c, 100, 1024, &n), "sparse round trip (5 entries)");
  ok(n <= 20, "5 entries near the sender take few bytes (%zu)", n);
  static uint8_t buf[4096];
  hrace__ec_encode(&c, 0, 100, 1024, buf);
  is_int(0, buf[0] & 3, "the sparse form is chosen");
  /* only entries beyond kmin travel */
  size_t m = hrace__ec_encode(&c, 42, 100, 1024, buf);
  hrace_ec_t d;
  hrace__ec_init(&d);
  ok(hrace__ec_decode(&d, buf, m, 100, 1024) && d.k == 42 && d.len == 2,
     "encoding for kmin 42 sends k 42 and the two entries beyond it");
  /* dense: every exporter known beyond k, small values: dense varints */
  hrace_ec_t f;
  hrace__ec_init(&f);
  for (uint32_t x = 0; x < 500; x++) hrace__ec_set(&f, x, 0, x % 30);
  ok(roundtrip(&f, 0, 500, &n), "dense-varint round trip");
  hrace__ec_encode(&f, 0, 0, 500, buf);
  is_int(1, buf[0] & 3, "dense varints chosen for 500 small entries of 500");
  ok(n <= 501, "one byte each (%zu)", n);
  /* large values: dense words; never more than 4 x nexp + 5 */
  for (uint32_t x = 0; x < 500; x++) hrace__ec_set(&f, x, 0, 100000000 + x);
  ok(roundtrip(&f, 0, 500, &n), "dense-word round trip");
  hrace__ec_encode(&f, 0, 0, 500, buf);
  is_int(2, buf[0] & 3, "dense words chosen for large values");
  ok(n <= 4 * 500 + 5, "within 5 bytes of the full vector (%zu)", n);
  /* malformed input */
  uint8_t bad1[] = { 0x03 };                              /* form 3 */
  uint8_t bad2[] = { 0x00, 0x02, 0x00, 0x00 };            /* two entries, second missing */
  uint8_t bad3[] = { 0x00, 0x01, 0xfe, 0x0f, 0x00 };      /* x beyond nexp */
  uint8_t bad4[] = { 0x00, 0x00, 0x00 };                  /* trailing byte */
  uint8_t bad5[] = { 0x80, 0x80 };                        /* truncated varint */
  ok(!hrace__ec_decode(&d, bad1, sizeof bad1, 0, 8), "unknown form refused");
  ok(!hrace__ec_decode(&d, bad2, sizeof bad2, 0, 8), "truncated entry list refused");
  ok(!hrace__ec_decode(&d, bad3, sizeof bad3, 0, 8), "exporter out of range refused");
  ok(!hrace__ec_decode(&d, bad4, sizeof bad4, 0, 8), "trailing bytes refused");
  ok(!hrace__ec_decode(&d, bad5, sizeof bad5, 0, 8), "truncated varint refused");
  ok(d.len == 0, "a refused clock is left empty");
  /* random fuzz: random clocks round-trip, random bytes never crash */
  srand(24);
  int good = 1;
  for (int it = 0; it < 2000; it++) {
    hrace_ec_t r;
    hrace__ec_init(&r);
    uint32_t nexp = 1 + rand() % 300;
    r.k = rand() % 5;
    for (int j = rand() % 40; j > 0; j--) {
      uint32_t g = rand() % 9 == 0 ? HRACE_EC_G_NEVER : r.k + rand() % 6;
      hrace__ec_set(&r, rand() % nexp, g, rand() % 7 == 0 ? (uint32_t)rand() : (uint32_t)(rand() % 100));
    }
    if (!roundtrip(&r, rand() % nexp, nexp, NULL)) good = 0;
    uint8_t junk[32];
    for (unsigned j = 0; j < sizeof junk; j++) junk[j] = rand();
    hrace__ec_decode(&r, junk, 1 + rand() % sizeof junk, 0, nexp);
    hrace__ec_free(&r);
  }
  ok(good, "2000 random clocks round-trip; random bytes are refused or decoded, never crash");
  hrace__ec_free(&c), hrace__ec_free(&d), hrace__ec_free(&f);
}

int main(void) {
  test_basics();
  test_never();
  test_join_prune();
  test_wire();
  return tap_done();
}
