/* Unit tests of the history of plain memory (src/access/history.h): accesses recorded by other
 * threads before an RMA operation's issue, checked at the issue against the issuing thread's
 * clock. The descriptors carry made-up clock stamps (exporter k, value c) and the views are
 * made-up clocks, so the tests decide what is ordered; the addresses are never dereferenced.
 * Covers: write vs an operation that reads the buffer, read vs one that writes it, partial
 * overlap, several threads, a new segment replacing the old bytes of a line, lines evicted by
 * aliasing ones, ranges longer than the table's reach, and a reader racing with the owner's
 * rewrites of one cell (the sequence lock). */
#include <pthread.h>

#include "access/history.h"
#include "tap.h"

static struct { int n; hrace_aid_t op[32], prev[32]; uint64_t addr[32], len[32]; } got;
static void sink(void *ctx, hrace_aid_t op, hrace_aid_t prev, uint64_t addr, uint64_t len) {
  if (got.n < 32) got.op[got.n] = op, got.prev[got.n] = prev, got.addr[got.n] = addr, got.len[got.n] = len;
  got.n++;
}

static hrace_aid_t acc(uint32_t exporter, hrace_clk_t clk, uint16_t flags) {
  hrace_access_t a = { .exporter = exporter, .flags = flags, .rank = 0, .thread = (int)exporter };
  atomic_init(&a.clk, clk);
  return hrace__access_new(&a);
}

static hrace_vc_t view(hrace_clk_t c0, hrace_clk_t c1, hrace_clk_t c2) {
  hrace_vc_t v;
  hrace__vc_init(&v, 3);
  v.c[0] = c0, v.c[1] = c1, v.c[2] = c2;
  return v;
}

static void check(uintptr_t addr, uint64_t len, hrace_aid_t op, const hrace_vc_t *v) {
  uint64_t r[2] = { addr, len };
  got.n = 0;
  hrace__history_check(r, 1, op, v, sink, NULL);
}

static int found(hrace_aid_t prev, uintptr_t addr, uint64_t len) {
  for (int i = 0; i < got.n && i < 32; i++)
    if (got.prev[i] == prev) return got.addr[i] == addr && got.len[i] == len;
  return 0;
}

/* Run f(arg) on a thread of its own (a thread of the process other than the checker). */
static void on_thread(void *(*f)(void *), void *arg) {
  pthread_t th;
  pthread_create(&th, NULL, f, arg);
  pthread_join(th, NULL);
}

#define BUF ((uintptr_t)0x10000000)
static hrace_aid_t W1, R1, W2, W3;

static void *t1_first(void *arg) {
  hrace__history_record(BUF, 64, 1, W1, 1);            /* writes the whole first line */
  hrace__history_record(BUF + 100, 10, 0, R1, 1);      /* reads 10 bytes of the second */
  return NULL;
}
static void *t2(void *arg) {
  hrace__history_record(BUF + 200, 8, 1, W2, 1);
  return NULL;
}
static void *t1_again(void *arg) {
  hrace__history_record(BUF, 8, 1, W3, 2);             /* a later segment of thread 1 */
  return NULL;
}

static void test_basic(void) {
  W1 = acc(1, 5, HRACE_ACC_WRITE);
  R1 = acc(1, 5, HRACE_ACC_READ);
  W2 = acc(2, 3, HRACE_ACC_WRITE);
  W3 = acc(1, 7, HRACE_ACC_WRITE);
  hrace_aid_t put = acc(0, HRACE_CLK_INF, HRACE_ACC_READ | HRACE_ACC_REMOTE);
  hrace_aid_t get = acc(0, HRACE_CLK_INF, HRACE_ACC_WRITE | HRACE_ACC_REMOTE);
  hrace_vc_t none = view(1, 0, 0), knows1 = view(1, 5, 0), knows_all = view(1, 9, 9);

  check(BUF, 64, put, &none);
  is_int(0, got.n, "nothing recorded: nothing found");
  on_thread(t1_first, NULL);
  check(BUF, 64, put, &none);
  ok(got.n == 1 && got.op[0] == put && found(W1, BUF, 64),
     "a put from a buffer another thread wrote, unordered: one race over the 64 bytes");
  check(BUF + 8, 16, put, &none);
  ok(got.n == 1 && found(W1, BUF + 8, 16), "a put of part of it: the race covers that part");
  check(BUF, 64, put, &knows1);
  is_int(0, got.n, "the same put by a thread that knows the write: no race");
  check(BUF + 100, 10, put, &none);
  is_int(0, got.n, "a put from a buffer another thread only read: no race");
  check(BUF + 105, 95, get, &none);
  ok(got.n == 1 && found(R1, BUF + 105, 5), "a get into it: a race over the 5 bytes read");
  check(BUF + 64, 36, get, &none);
  is_int(0, got.n, "a get into the bytes before the read ones: no race");

  on_thread(t2, NULL);
  check(BUF, 256, get, &none);
  ok(got.n == 3 && found(W1, BUF, 64) && found(R1, BUF + 100, 10) && found(W2, BUF + 200, 8),
     "a get over everything meets both threads' three accesses");
  check(BUF, 256, get, &knows_all);
  is_int(0, got.n, "none of them when the getter knows both threads");

  on_thread(t1_again, NULL);
  check(BUF, 64, put, &knows1);
  ok(got.n == 1 && found(W3, BUF, 8),
     "a write in a later segment replaces the line's old bytes; the putter knows only the old");
}

/* Lines that share a cell, and ranges longer than the table reaches. */
#define REACH ((uintptr_t)HRACE_HIST_CELLS << HRACE_HIST_LINE)
static hrace_aid_t WE;
static void *alias(void *arg) {
  hrace__history_record(BUF, 8, 1, WE, 1);
  hrace__history_record(BUF + REACH, 8, 1, WE, 1);     /* same cell: evicts the first */
  hrace__history_record(BUF + 3 * REACH + 4096, 16, 1, WE, 1);
  return NULL;
}
static void test_reach(void) {
  WE = acc(1, 11, HRACE_ACC_WRITE);
  hrace_aid_t put = acc(0, HRACE_CLK_INF, HRACE_ACC_READ | HRACE_ACC_REMOTE);
  hrace_vc_t v = view(1, 10, 9);
  on_thread(alias, NULL);
  check(BUF, 8, put, &v);
  is_int(0, got.n, "a line evicted by one that shares its cell is forgotten");
  check(BUF + REACH, 8, put, &v);
  ok(got.n == 1 && found(WE, BUF + REACH, 8), "the line that evicted it is found");
  check(BUF + REACH - 4096, 4 * REACH, put, &v);
  ok(got.n == 1 && found(WE, BUF + REACH, 3 * REACH + 4096 + 16 - REACH),
     "a range four times the table's reach finds both lines in it (one report, both ends)");
}

/* The owner rewrites one cell back and forth between two states while another thread checks:
 * the check sees one state or the other, never a mix (the sequence lock). */
static hrace_aid_t WA, WB;
static _Atomic int stop;
static void *flip(void *arg) {
  uint64_t seg = 100;
  while (!atomic_load(&stop)) {
    hrace__history_record(BUF + 8 * REACH, 8, 1, WA, seg++);
    hrace__history_record(BUF + 8 * REACH + 8, 8, 1, WB, seg++);
  }
  return NULL;
}
static void test_torn(void) {
  WA = acc(1, 20, HRACE_ACC_WRITE);
  WB = acc(2, 20, HRACE_ACC_WRITE);
  hrace_aid_t put = acc(0, HRACE_CLK_INF, HRACE_ACC_READ | HRACE_ACC_REMOTE);
  hrace_vc_t v = view(1, 0, 0);
  pthread_t th;
  pthread_create(&th, NULL, flip, NULL);
  long seen_a = 0, bad = 0;
  for (long i = 0; i < 400000; i++) {
    check(BUF + 8 * REACH, 8, put, &v);
    if (got.n == 1 && found(WA, BUF + 8 * REACH, 8)) seen_a++;
    else if (got.n != 0) bad++;
  }
  atomic_store(&stop, 1);
  pthread_join(th, NULL);
  is_int(0, bad, "never a mix of the two states (found the first state %ld times)", seen_a);
}

int main(void) {
  test_basic();
  test_reach();
  test_torn();
  return tap_done();
}
