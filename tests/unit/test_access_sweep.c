/* Unit tests of the descriptor sweep (src/clocks/access.c, table.c, the walk in shadow.c): the
 * table's free list; a run of many segments over a small shadow whose ids stay bounded while a
 * descriptor recorded in the first segment, and one in flight, survive every sweep with the
 * verdicts they had (the race that the first segment's write makes with a late unordered write
 * is still reported against it, and a late write ordered after it still is not); the
 * handshake that parks threads for a sweep; and sweeps claimed while threads make, store and
 * cache descriptors, parking between segments as at OpenMP barriers (with the caches left
 * unwalked, 2 888 reused ids are caught in one run; a sweep that does not wait for the threads
 * to park is caught by the handshake's test). */
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

/* Sweeps racing with accesses, as the barrier sweep point runs them: worker threads make
 * descriptors of their own (code address = worker, epoch = segment), store them into their
 * own part of a shared shadow and keep the last few in a cache that the sweep walks (the
 * owner), some of them after their cells forgot them, then store each id leaving the cache into
 * a cell of its own, parking between segments; the main thread sweeps whenever one is due and it can
 * claim it. No id may be reused while a cell or a cache names it: each worker checks, every
 * segment, that the descriptors its cache and its cells name are still its own (a descriptor
 * given back has its fields cleared), and every segment's write
 * is checked against what its cells held (a reused id there would name another worker's
 * access, unordered: a race). Counts, not times: each worker runs RACE_SEGMENTS segments. */
enum { RACE_WORKERS = 3, RACE_SEGMENTS = 100000, RACE_CACHE = 4 };
typedef struct {
  int me;
  hrace_aid_t cache[RACE_CACHE];
  hrace_clk_t epoch[RACE_CACHE];
  hrace_aid_t cell[8];          /* what the worker's cells at 136 + 8 i hold (not walked) */
  hrace_clk_t cell_epoch[8];
  hrace_aid_t first;
  long reused, freed, races;
} racer_t;
static racer_t racers[RACE_WORKERS];
static hrace_shadow_t race_sh;
static _Atomic int racers_done;

static void race_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  (void)now, (void)prev, (void)off, (void)len;
  ((racer_t *)ctx)->races++;
}

static void *racer(void *arg) {
  racer_t *r = arg;
  uint32_t t = (uint32_t)r->me + 1;
  uintptr_t pc = 0x100 + (uintptr_t)r->me;
  uint64_t base = 256 * (uint64_t)r->me;
  hrace__access_thread_begins(r);
  view_t v;
  view(&v, t, 1, 0);
  r->first = lacc(t, 1, HRACE_ACC_WRITE, pc);
  hrace__shadow_access(&race_sh, base, 8, r->first, &v.g, race_sink, r);
  for (hrace_clk_t e = 2; e < RACE_SEGMENTS; e++) {
    v.l.c[t] = e;
    hrace_aid_t a = lacc(t, e, HRACE_ACC_WRITE, pc);
    hrace__shadow_access(&race_sh, base + 8 + (e % 2) * 8, 8, a, &v.g, race_sink, r);
    /* The id leaving the cache goes into a cell (as a repeated access stores a cached id):
     * between a walk that passed that cell and one that reaches the cache, only this store
     * holds it; the parking makes that impossible. */
    unsigned k = (unsigned)(e % RACE_CACHE);
    if (r->cache[k]) {
      hrace__shadow_access(&race_sh, base + 136 + (e % 8) * 8, 8, r->cache[k], &v.g, race_sink, r);
      r->cell[e % 8] = r->cache[k];
      r->cell_epoch[e % 8] = r->epoch[k];
    }
    r->cache[k] = a;   /* two of the cached ids are held by the cache only */
    r->epoch[k] = e;
    for (unsigned j = 0; j < RACE_CACHE; j++) {
      const hrace_access_t *d = r->cache[j] ? hrace__access_get(r->cache[j]) : NULL;
      if (d && (d->pc != pc || atomic_load(&d->clk) != r->epoch[j])) r->reused++;
    }
    for (unsigned j = 0; j < 8; j++) {
      const hrace_access_t *d = r->cell[j] ? hrace__access_get(r->cell[j]) : NULL;
      if (d && (d->pc != pc || atomic_load(&d->clk) != r->cell_epoch[j])) r->freed++;
    }
    if (e % 2 == 0) {   /* a barrier: parked, maybe for a sweep */
      hrace__access_park();
      sched_yield();
      hrace__access_unpark();
    }
  }
  hrace__access_park();
  atomic_fetch_add(&racers_done, 1);
  return NULL;
}

static void mark_racer(void *owner) {
  const racer_t *r = owner;
  for (unsigned k = 0; k < RACE_CACHE; k++) hrace__access_mark(r->cache[k]);
}

static void test_sweeps_race_accesses(void) {
  hrace__shadow_init(&race_sh, 256 * RACE_WORKERS);
  pthread_t t[RACE_WORKERS];
  for (int i = 0; i < RACE_WORKERS; i++) {
    racers[i].me = i;
    pthread_create(&t[i], NULL, racer, &racers[i]);
  }
  int sweeps = 0;
  while (atomic_load(&racers_done) < RACE_WORKERS) {
    if (!hrace__access_sweep_due() || !hrace__access_stop_others()) {
      sched_yield();
      continue;
    }
    if (hrace__access_sweep_begin()) {
      hrace__shadow_sweep_begin();
      hrace__shadow_mark(&race_sh);
      for (int k = 0; k < 8; k++) sched_yield();   /* a long walk: the workers may run */
      hrace__access_threads_each(mark_racer);
      hrace__shadow_sweep_end();
      hrace__access_sweep_end();
      sweeps++;
    }
    hrace__access_resume();
  }
  for (int i = 0; i < RACE_WORKERS; i++) pthread_join(t[i], NULL);
  long reused = 0, freed = 0, races = 0, intact = 0;
  for (int i = 0; i < RACE_WORKERS; i++) {
    reused += racers[i].reused, freed += racers[i].freed, races += racers[i].races;
    const hrace_access_t *f = hrace__access_get(racers[i].first);
    intact += f->pc == 0x100 + (uintptr_t)i && atomic_load(&f->clk) == 1;
  }
  ok(sweeps >= 2, "%d sweeps ran while %d threads made descriptors", sweeps, RACE_WORKERS);
  is_int(0, reused, "no cached descriptor was reused under its holder");
  is_int(0, freed, "no descriptor a cell holds was given back");
  is_int(0, races, "no cell named another thread's access (a reused id)");
  is_int(RACE_WORKERS, intact, "each thread's first write, held by a cell, is intact");
  uint64_t made;
  uint32_t end, nfree;
  hrace__access_counts(&made, &end, &nfree);
  ok(end < 4u << 16, "ids stay bounded: %u ever handed out for %llu made", end,
     (unsigned long long)made);
  hrace__shadow_free(&race_sh);
}

int main(void) {
  plan(22);
  test_free_list();
  test_long_run();
  test_parking();
  test_sweeps_race_accesses();
  return tap_failed > 255 ? 255 : tap_failed;
}
