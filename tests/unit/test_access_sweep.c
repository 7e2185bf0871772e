/* Unit tests of the descriptor sweep (src/clocks/access.c, table.c, the walk in shadow.c): the
 * table's free list; a run of many segments over a small shadow whose ids stay bounded while a
 * descriptor recorded in the first segment, and one in flight, survive every sweep with the
 * verdicts they had (the race that the first segment's write makes with a late unordered write
 * is still reported against it, and a late write ordered after it still is not); and the
 * handshake that parks threads for a sweep. */
#include <pthread.h>
#include <sched.h>

#include "clocks/access.h"
#include "clocks/shadow.h"
#include "clocks/table.h"
#include "clocks/vc.h"
#include "tap.h"

static struct { int n; hrace_aid_t prev[64]; } got;
static void sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  (void)ctx, (void)now, (void)off, (void)len;
  if (got.n < 64) got.prev[got.n] = prev;
  got.n++;
}

static hrace_aid_t lacc(uint32_t t, hrace_clk_t clk, uint16_t flags, uintptr_t pc) {
  hrace_access_t a = { .exporter = t, .flags = flags | HRACE_ACC_LOCALCLK, .pc = pc };
  atomic_init(&a.clk, clk);
  return hrace__access_new(&a);
}

/* The view of thread t at local time clk that knows thread 0 up to time k0. */
typedef struct { hrace_vc_t g, l; } view_t;
static void view(view_t *v, uint32_t t, hrace_clk_t clk, hrace_clk_t k0) {
  hrace__vc_init(&v->g, 0);
  hrace__vc_init(&v->l, 8);
  v->l.c[0] = k0;
  v->l.c[t] = clk;
  v->g.local = &v->l;
}

/* A sweep as rma/window.c runs it, over one shadow. */
static int sweep(hrace_shadow_t *sh) {
  if (!hrace__access_sweep_begin()) return 0;
  hrace__shadow_sweep_begin();
  hrace__shadow_mark(sh);
  hrace__shadow_mark_answers(hrace__shadow_thread_answers());
  hrace__shadow_sweep_end();
  hrace__access_sweep_end();
  return 1;
}

static void test_free_list(void) {
  static hrace_table_t t = HRACE_TABLE_INIT(uint64_t);
  uint32_t a = hrace__table_alloc(&t), b = hrace__table_alloc(&t), c = hrace__table_alloc(&t);
  ok(a == 1 && b == 2 && c == 3, "fresh ids count up from 1");
  *(uint64_t *)hrace__table_at(&t, b) = 0x5555;
  hrace__table_free(&t, b);
  hrace__table_free(&t, c);
  is_int(3, hrace__table_alloc(&t), "the last id freed comes back first");
  uint32_t again = hrace__table_alloc(&t);
  is_int(2, again, "then the one before");
  is_int(0, (long long)*(uint64_t *)hrace__table_at(&t, again), "zero-filled again");
  is_int(4, hrace__table_alloc(&t), "an empty free list hands out a new id");
}

enum { SEGMENTS = 300000 };

static void test_long_run(void) {
  hrace_shadow_t sh;
  hrace__shadow_init(&sh, 4096);
  /* Segment 1 of thread 0 writes bytes [0, 8) at code address 0xA and [8, 16) at 0xA2; an RMA
   * operation stays in flight (held by its origin's record only, as rma/buffers.c's are). */
  view_t v;
  view(&v, 0, 1, 1);
  hrace_aid_t first = lacc(0, 1, HRACE_ACC_WRITE, 0xA), second = lacc(0, 1, HRACE_ACC_WRITE, 0xA2);
  got.n = 0;
  hrace__shadow_access(&sh, 0, 8, first, &v.g, sink, NULL);
  hrace__shadow_access(&sh, 8, 8, second, &v.g, sink, NULL);
  hrace_access_t in_flight = { .exporter = 9, .flags = HRACE_ACC_WRITE | HRACE_ACC_REMOTE };
  atomic_init(&in_flight.clk, HRACE_CLK_INF);
  hrace_aid_t op = hrace__access_new(&in_flight);

  /* Then SEGMENTS segments, each writing 8 of bytes [64, 128) from two code addresses. */
  uint64_t made0;
  uint32_t end0, free0;
  hrace__access_counts(&made0, &end0, &free0);
  int sweeps = 0;
  for (hrace_clk_t e = 2; e < SEGMENTS; e++) {
    v.l.c[0] = e;
    hrace_aid_t a = lacc(0, e, HRACE_ACC_WRITE, 0xB), b = lacc(0, e, HRACE_ACC_READ, 0xC);
    hrace__shadow_access(&sh, 64 + (e % 8) * 8, 8, a, &v.g, sink, NULL);
    hrace__shadow_access(&sh, 64 + ((e + 3) % 8) * 8, 8, b, &v.g, sink, NULL);
    if (hrace__access_sweep_due()) sweeps += sweep(&sh);
  }
  uint64_t made;
  uint32_t end, nfree;
  hrace__access_counts(&made, &end, &nfree);
  is_int(0, got.n, "one thread's segments race with nothing");
  ok(made - made0 >= 2 * (SEGMENTS - 2), "%llu descriptors made", (unsigned long long)(made - made0));
  ok(sweeps >= 3, "%d sweeps ran", sweeps);
  ok(end < 3u << 16, "ids stay bounded: %u ever handed out (%u free)", end, nfree);

  const hrace_access_t *f = hrace__access_get(first);
  ok(f->pc == 0xA && f->flags == (HRACE_ACC_WRITE | HRACE_ACC_LOCALCLK) &&
     atomic_load(&f->clk) == 1, "the first segment's write, held by a cell, is intact");
  ok(atomic_load(&hrace__access_get(op)->clk) == HRACE_CLK_INF &&
     hrace__access_get(op)->exporter == 9, "the operation in flight is intact");

  /* Thread 1, knowing thread 0 up to the first segment: its write of [0, 8) is ordered after
   * the first write (no race), whatever the sweeps did; a reused id there would be a later
   * segment's, unordered: a false race. */
  view_t v1;
  view(&v1, 1, 1, 1);
  hrace_aid_t w1 = lacc(1, 1, HRACE_ACC_WRITE, 0xD);
  got.n = 0;
  hrace__shadow_access(&sh, 0, 8, w1, &v1.g, sink, NULL);
  is_int(0, got.n, "a write ordered after the first segment: no race");

  /* Thread 2, knowing nothing of thread 0, writes [8, 16): races with the first segment's
   * write there, still named by its id (a freed id would name another access, or nothing). */
  view_t v2;
  view(&v2, 2, 1, 0);
  hrace_aid_t w2 = lacc(2, 1, HRACE_ACC_WRITE, 0xE);
  got.n = 0;
  hrace__shadow_access(&sh, 8, 8, w2, &v2.g, sink, NULL);
  ok(got.n == 1 && got.prev[0] == second && hrace__access_get(second)->pc == 0xA2,
     "an unordered write races with the first segment's, at its code address");
  hrace__shadow_free(&sh);
}

/* The parking handshake: worker threads alternate between "accessing" (unparked, a flag set)
 * and parked until told to stop, while the main thread claims sweeps and, while it holds one,
 * watches the flags; a claim must never see a worker accessing, and every worker must get
 * through (no thread waits for ever). Counts, not times: the main thread stops the workers
 * after CLAIMS claims. */
enum { WORKERS = 3, CLAIMS = 2000 };
static _Atomic int accessing[WORKERS], stop;
static int owners[WORKERS];

static void *worker(void *arg) {
  int me = (int)(intptr_t)arg;
  hrace__access_thread_begins(&owners[me]);   /* registers parked, then unparks */
  while (!atomic_load(&stop)) {
    atomic_store(&accessing[me], 1);
    for (volatile int k = 0; k < 20; k++) {
    }
    atomic_store(&accessing[me], 0);
    hrace__access_park();
    for (volatile int k = 0; k < 20; k++) {
    }
    hrace__access_unpark();
  }
  hrace__access_park();
  return NULL;
}

static int counted;
static void count(void *owner) { (void)owner, counted++; }

static void test_parking(void) {
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  long claims = 0, caught = 0;
  while (claims < CLAIMS) {
    if (!hrace__access_stop_others()) {
      sched_yield();
      continue;
    }
    claims++;
    for (int k = 0; k < 4; k++) {   /* let the workers run: they must stay out */
      sched_yield();
      for (int i = 0; i < WORKERS; i++) caught += atomic_load(&accessing[i]);
    }
    hrace__access_resume();
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
  is_int(CLAIMS, claims, "sweeps claimed while %d threads park and unpark", WORKERS);
  is_int(0, caught, "no claimed sweep saw a thread between unpark and park");
  counted = 0;
  hrace__access_threads_each(count);
  is_int(0, counted, "threads that ended are gone from the walk");
}

int main(void) {
  plan(16);
  test_free_list();
  test_long_run();
  test_parking();
  return tap_failed > 255 ? 255 : tap_failed;
}
