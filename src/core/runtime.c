/* Process and thread state, the hybrid clocks' signal / wait / release / acquire, and
 * per-segment access descriptors (see proc.h, thread.h, hb.h).
 *
 *   event                      local part l (threads)        global part g (exporters)
 *   thread starts              l[self] = 1                   -
 *   release into sync object   s.l |= l; l[self]++           s.g |= g
 *   acquire from sync object   l |= s.l                      g |= s.g
 *   signal (publish g)         snapshot (g[e], l); l[self]++ g[e]++ after publishing
 *   wait (receive G)           l |= snapshots G brings back  g |= G
 *
 * "self" is the current context (the thread's own, or the explicit task it runs). A local access
 * is stamped (self, l[self]); an RMA operation completed by exporter e is stamped (e, k), k the
 * value e publishes next. Ticks happen after the event, so later accesses are not covered. */
#include "core/hb.h"
#include "core/proc.h"
#include "core/thread.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/options.h"
#include "clocks/exporter.h"
#include "core/hooks.h"

hrace_proc_t hrace__proc = { .rank = -1, .thread_level = MPI_THREAD_MULTIPLE };

static const char *const op_names[] = {
#define X(e, s) s,
  HRACE_OPS(X)
#undef X
};

const char *hrace__op_name(unsigned op) { return op < HRACE_OP_COUNT ? op_names[op] : "access"; }

/* Initial-exec TLS: the per-access path reaches it with one %fs-relative load. */
__thread hrace_thread_t hrace__self __attribute__((tls_model("initial-exec"), aligned(64)));
__thread bool hrace__self_ready __attribute__((tls_model("initial-exec")));
static _Atomic int next_tid;
static _Atomic uint32_t next_idx;    /* entries of the local clock part: threads and tasks */

/* Clock versions (hrace_ctx_t.ver): every change of a context's clock below stamps it anew,
 * from the changing thread's own sequence with its number in the low bits, so no two stamps of
 * the process are equal (a context freed and made again at the same address gets a new one).
 * Only the thread running a context changes its clock. */
static __thread uint64_t ver_seq __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t ver_thread;   /* the low bits: a number per thread, from 1 */
static __thread uint32_t ver_low __attribute__((tls_model("initial-exec")));
static HRACE_COLD uint32_t ver_low_first(void) {
  ver_low = atomic_fetch_add_explicit(&ver_thread, 1, memory_order_relaxed) + 1;
  return ver_low;
}
static inline void touch(hrace_ctx_t *c) {
  uint32_t low = HRACE_LIKELY(ver_low) ? ver_low : ver_low_first();
  c->ver = ++ver_seq << 24 | (low & 0xffffff);
}

static void ctx_init(hrace_ctx_t *c, uint32_t idx) {
  c->idx = idx;
  hrace__vc_init(&c->l, idx + 1);
  c->l.c[idx] = 1;                   /* 0 would be covered by every clock */
  hrace__vc_init(&c->g, 0);
  c->g.local = &c->l;
  touch(c);
}

/* ---- live contexts: the registry hrace__ctx_base_floor reads ------------------------------
 * Every thread's own context from its first use to its exit (a thread-specific key's destructor
 * takes it out; the initial thread's stays to the end), every explicit task's from creation to
 * hrace__ctx_end. hrace's own threads are not in it. ctx_mu also guards the task entries kept
 * for reuse (below), so a task's creation and end each take one lock. */
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_list_t live = HRACE_LIST_INIT(live);
static pthread_key_t live_key;
static pthread_once_t live_once = PTHREAD_ONCE_INIT;
static __thread bool live_own __attribute__((tls_model("initial-exec")));   /* base is in it */

/* A thread's own context, which may be listed already with its links zeroed: hrace code run
 * before the executable's TLS was set up (an ifunc resolver of target_clones) made the main
 * thread's state and listed it, then the TLS image's initialisation zeroed it at the same
 * address. Such an element is found by address and its links restored from its neighbours
 * (pushed again, the list became a cycle and access_masked_* hung). */
static void live_add_thread(hrace_ctx_t *c) {
  pthread_mutex_lock(&ctx_mu);
  hrace_list_t *prev = &live, *next = &live;
  while (prev->next != &live && prev->next != &c->live) prev = prev->next;
  if (prev->next == &c->live) {
    while (next->prev != &c->live) next = next->prev;
    c->live.prev = prev;
    c->live.next = next;
  } else {
    hrace_list_push_front(&live, &c->live);
  }
  pthread_mutex_unlock(&ctx_mu);
}

static void live_remove(hrace_ctx_t *c) {
  pthread_mutex_lock(&ctx_mu);
  hrace_list_remove(&c->live);
  pthread_mutex_unlock(&ctx_mu);
}

static void live_thread_exit(void *unused) {
  (void)unused;
  hrace__ctx_unlive_thread();
}

static void live_key_make(void) { pthread_key_create(&live_key, live_thread_exit); }

void hrace__ctx_unlive_thread(void) {
  if (live_own) live_remove(&hrace__self.base);
  live_own = false;
}

void hrace__ctx_know_base(uint32_t num) {
  hrace_ctx_t *c = hrace__thread()->cur;
  if (atomic_load_explicit(&c->base, memory_order_relaxed) < num)
    atomic_store_explicit(&c->base, num, memory_order_relaxed);
}

uint32_t hrace__ctx_base_floor(void) {
  uint32_t floor = UINT32_MAX;
  pthread_mutex_lock(&ctx_mu);
  hrace_list_for_each(it, tmp, &live) {
    uint32_t b = atomic_load_explicit(&hrace_list_entry(it, hrace_ctx_t, live)->base, memory_order_relaxed);
    if (b < floor) floor = b;
  }
  pthread_mutex_unlock(&ctx_mu);
  return floor;
}

hrace_thread_t *hrace__thread_first(void) {
  if (!hrace__self_ready) {
    hrace__self_ready = true;
    hrace__self.tid = atomic_fetch_add(&next_tid, 1);
    hrace__self.reply_tag = 1000 + hrace__self.tid;
    hrace__self.exporter = UINT32_MAX;
    hrace__self.published = 1;
    ctx_init(&hrace__self.base, atomic_fetch_add(&next_idx, 1));
    hrace__self.cur = &hrace__self.base;
    live_add_thread(&hrace__self.base);
    live_own = true;
    pthread_once(&live_once, live_key_make);
    pthread_setspecific(live_key, &hrace__self);   /* non-NULL: the destructor runs at exit */
  }
  return &hrace__self;
}

void hrace__thread_internal(void) {
  hrace_thread_t *t = &hrace__self;
  hrace__ctx_unlive_thread();
  hrace__self_ready = true;
  t->tid = -1;
  t->reply_tag = 999;
  t->exporter = UINT32_MAX;
  t->cur = &t->base;                 /* never used for accesses: depth stays 1 */
  t->depth = 1;                      /* nothing this thread does is the application's */
}

void hrace__runtime_init(void) { hrace__options_init(); }

/* The initial thread takes tid 0 before any other thread can exist. */
__attribute__((constructor)) static void runtime_ctor(void) {
  hrace__thread();
  hrace__runtime_init();
}

void hrace__runtime_mpi_init(int rank, int size, int required) {
  hrace__proc.thread_level = required;
  /* {slots, threads before the cap (0: not capped), wire_slots + 1 and its negation} */
  long mine[4] = { hrace__opt.exporters, 0, hrace__opt.wire_slots + 1, -(hrace__opt.wire_slots + 1) };
  long all[4];
  if (mine[0] <= 0) {
    /* Up to FUNNELED only one thread calls MPI: one entry per rank. Otherwise one per thread
     * that may call it, bounded by what OpenMP will run. */
    if (required <= MPI_THREAD_FUNNELED) {
      mine[0] = 1;
    } else {
      const char *env = getenv("OMP_NUM_THREADS");
      mine[0] = env && atoi(env) > 0 ? atoi(env) : sysconf(_SC_NPROCESSORS_ONLN);
      if (mine[0] < 2) mine[0] = 2;
      if (mine[0] > 64) mine[0] = 64;
      /* A clock has size x slots entries: in memory (every posted receive keeps one), in
       * some collectives' exchanges, and in a message's tail once that many threads call MPI
       * (docs/design.md, "exporter slots"): 64 threads at 1000 ranks would be 256 KiB. */
      long cap = hrace__opt.clock_budget > 0 ? hrace__opt.clock_budget / (size > 0 ? size : 1) : mine[0];
      if (cap < 1) cap = 1;
      if (mine[0] > cap) mine[1] = mine[0], mine[0] = cap;
    }
  }
  if (mine[0] > 64) mine[0] = 64;
  /* Every process must lay its clock out alike (frames, tails and collective exchanges are
   * sized by it), but MPI lets ranks ask for different thread levels, and their
   * OMP_NUM_THREADS may differ: all take the largest. Unagreed, a FUNNELED rank's sparse
   * exchange met a MULTIPLE rank's dense one and MPI failed with MPI_ERR_TRUNCATE. The frame's
   * length (wire_slots) must agree too, or a receiver would read clock entries from data:
   * HRACE_OPTIONS normally reaches every rank alike, but a launch may give ranks their own. */
  memcpy(all, mine, sizeof all);
  if (hrace__proc.world_shadow != MPI_COMM_NULL)
    PMPI_Allreduce(mine, all, 4, MPI_LONG, MPI_MAX, hrace__proc.world_shadow);
  long slots = all[0], ws = all[2] - 1;
  if (all[2] != -all[3] && rank == 0)
    hrace__warn("ranks were given different wire_slots options (%ld to %ld): all use %ld",
                -all[3] - 1, ws, ws);
  if (all[1] && rank == 0)
    hrace__warn("%d ranks x %ld threads that may call MPI would make clocks of %ld bytes; "
                "using %ld entries per rank instead: more threads of one rank that make "
                "MPI calls share the last, and races among them may be missed "
                "(HRACE_OPTIONS=exporters=N or clock_budget=N changes it)",
                size, all[1], 4 * (long)size * all[1], slots);
  hrace__exporters_init(rank, size, (int)slots, required > MPI_THREAD_FUNNELED);
  hrace__proc.clock_len = hrace__exporters_len();
  hrace__proc.wire_len = ws < 0 ? 0 : ws == 0 || ws >= slots ? hrace__proc.clock_len : (uint32_t)(size * ws);
}

/* Set once some clock of this process may have a non-zero entry at or beyond wire_len. Global
 * parts change only by a thread's own publication (exporter() below), by hrace__wait, and by
 * joins of other global parts of this process (OpenMP release / acquire, task creation), so
 * setting it at the first two is enough; before it is set no sender scans its clock's tail. */
static _Atomic bool tail_live;
static inline void note_tail(void) {
  if (!atomic_load_explicit(&tail_live, memory_order_relaxed))
    atomic_store_explicit(&tail_live, true, memory_order_relaxed);
}

static void dump(const char *what, const char *why) {
  if (!hrace__opt.dump_clocks) return;
  hrace_thread_t *t = hrace__thread();
  char g[512], l[256];
  dprintf(2, "hrace: rank %d thread %d ctx %u: clock %s at %s: g=%s l=%s\n", hrace__proc.rank,
          t->tid, t->cur->idx, what, why, hrace__vc_format(&t->cur->g, g, sizeof g),
          hrace__vc_format(&t->cur->l, l, sizeof l));
}

/* The thread's exporter entry, assigned on first use (and again after a barrier gave it up:
 * hrace__thread_exporter_yield); the current context's global part is made long enough to hold
 * every entry. */
static HRACE_COLD uint32_t exporter_slow(hrace_thread_t *t) {
  if (t->exporter == UINT32_MAX) {
    t->exporter = hrace__exporter_of(t->tid, &t->cur->l, &t->published);
    t->snapped = t->published - 1;   /* the first publication on the slot takes a snapshot */
    t->run_ctx = NULL;
    if (t->exporter >= hrace__proc.wire_len) note_tail();
  }
  if (t->cur->g.n < hrace__clock_len()) {
    hrace__vc_grow(&t->cur->g, hrace__clock_len());
    touch(t->cur);
  }
  return t->exporter;
}
/* Inline, its rare paths out of line: it runs twice per message (send, receive post), and as
 * a function with both paths it cost 25 instructions a call, most of them saving registers. */
static inline uint32_t exporter(hrace_thread_t *t) {
  if (HRACE_UNLIKELY(t->exporter == UINT32_MAX || t->cur->g.n < hrace__clock_len()))
    return exporter_slow(t);
  return t->exporter;
}

uint32_t hrace__thread_exporter(void) { return exporter(hrace__thread()); }

void hrace__thread_exporter_yield(void) {
  if (hrace__proc.thread_level <= MPI_THREAD_FUNNELED) return;   /* one MPI-calling thread */
  hrace_thread_t *t = hrace__thread();
  if (t->tid < 0 || t->exporter == UINT32_MAX) return;
  hrace_ctx_t *c = t->cur;
  hrace__exporter_release(t->exporter, t->published, c->idx, c->l.c[c->idx]);
  t->exporter = UINT32_MAX;
  t->run_ctx = NULL;
}

/* A completion now is stamped with the value the thread publishes next: receivers of earlier
 * publications are not ordered after it, receivers of the next one are. The completing context
 * itself knows it at once (its later accesses follow the completion in program order). */
hrace_clk_t hrace__thread_epoch(void) {
  hrace_thread_t *t = hrace__thread();
  uint32_t e = exporter(t);
  if (t->cur->g.c[e] < t->published) {
    t->cur->g.c[e] = t->published;
    touch(t->cur);
  }
  return t->published;
}

/* The exporter entry counts the thread's publications, whichever context made them; the
 * publishing context knows at least that much of its own thread.
 *
 * The snapshot of a publication is taken here, once, before the clock can leave the process:
 * a record that arrives right after the publication is judged through it (a snapshot taken in
 * hrace__signal_done came too late for that, and one taken there again would include what the
 * exchange itself brought back, which the published clock did not know). */
static inline const hrace_vc_t *signal_clock(hrace_thread_t *t) {
  if (HRACE_UNLIKELY(atomic_load_explicit(&hrace__fwd_pending, memory_order_relaxed)))
    hrace__fwd_flush_hook(1);
  hrace_ctx_t *c = t->cur;
  uint32_t e = exporter(t);
  if (t->snapped != t->published) {
    unsigned gen = atomic_load_explicit(&hrace__exporters_gen, memory_order_relaxed);
    if (t->run_ctx != c || t->run_gen != gen) {   /* else implied by the run: see the field */
      /* may raise t->published when the slot is shared */
      t->run_ctx = hrace__exporter_snapshot(e, &t->published, &c->l, c->idx) ? c : NULL;
      t->run_gen = gen;
    }
    t->snapped = t->published;
  }
  if (c->g.c[e] < t->published) {
    c->g.c[e] = t->published;
    touch(c);
  }
  return &c->g;
}

const hrace_vc_t *hrace__signal_clock(void) { return signal_clock(hrace__thread()); }

void hrace__signal_clock_out(hrace_clk_t *dst) {
  const hrace_vc_t *v = signal_clock(hrace__thread());
  uint32_t len = hrace__clock_len(), n = v->n < len ? v->n : len, i;
  for (i = 0; i < n; i++) dst[i] = v->c[i];   /* a few entries: no memcpy call */
  for (; i < len; i++) dst[i] = 0;
}

uint32_t hrace__signal_clock_wire(hrace_clk_t *dst, const hrace_clk_t **all) {
  const hrace_vc_t *v = signal_clock(hrace__thread());
  uint32_t len = hrace__proc.wire_len, n = v->n < len ? v->n : len, i;
  for (i = 0; i < n; i++) dst[i] = v->c[i];
  for (; i < len; i++) dst[i] = 0;
  if (HRACE_LIKELY(!atomic_load_explicit(&tail_live, memory_order_relaxed)) || v->n <= len) return 0;
  uint32_t m = v->n;
  while (m > len && !v->c[m - 1]) m--;
  *all = v->c;
  return m > len ? m : 0;
}

static HRACE_COLD void signal_clock_cold(hrace_thread_t *t) { signal_clock(t); }

void hrace__signal_done(const char *why) {
  hrace_thread_t *t = hrace__thread();
  hrace_ctx_t *c = t->cur;
  if (HRACE_UNLIKELY(t->snapped != t->published)) signal_clock_cold(t);   /* published without asking */
  if (HRACE_UNLIKELY(hrace__opt.dump_clocks)) dump("signal", why);
  t->published++;                    /* c->g.c[e] stays at the value just published */
  c->l.c[c->idx]++;
  touch(c);
  c->region = why;
}

void hrace__wait(const hrace_clk_t *clk, uint32_t n, const char *why) {
  hrace_thread_t *t = hrace__thread();
  hrace_ctx_t *c = t->cur;
  hrace_vc_t got = { .n = n, .c = (hrace_clk_t *)clk };
  if (hrace__exporters_recall(&got, &c->g, &c->l)) t->run_ctx = NULL;   /* before the join: see exporter.h */
  while (n && !clk[n - 1]) n--;                    /* hrace__vc_join_raw, inline */
  if (HRACE_UNLIKELY(n > hrace__proc.wire_len)) note_tail();
  if (HRACE_UNLIKELY(n > c->g.n)) hrace__vc_grow(&c->g, n);
  for (uint32_t i = 0; i < n; i++)
    if (clk[i] > c->g.c[i]) c->g.c[i] = clk[i];
  touch(c);                          /* the recall above may have changed l too */
  c->region = why;
  if (HRACE_UNLIKELY(hrace__opt.dump_clocks)) dump("wait", why);
}

void hrace__sync_obj_init(hrace_sync_t *s) {
  pthread_mutex_init(&s->mu, NULL);
  hrace__vc_init(&s->l, 0);
  hrace__vc_init(&s->g, 0);
  s->base = 0;
}

void hrace__sync_obj_destroy(hrace_sync_t *s) {
  pthread_mutex_destroy(&s->mu);
  hrace__vc_free(&s->l);
  hrace__vc_free(&s->g);
}

void hrace__release(hrace_sync_t *s, const char *why) {
  hrace_thread_t *t = hrace__thread();
  if (t->tid < 0) return;
  hrace_ctx_t *c = t->cur;
  pthread_mutex_lock(&s->mu);
  hrace__vc_join(&s->l, &c->l);
  hrace__vc_join(&s->g, &c->g);
  uint32_t b = atomic_load_explicit(&c->base, memory_order_relaxed);
  if (b > s->base) s->base = b;
  pthread_mutex_unlock(&s->mu);
  c->l.c[c->idx]++;
  touch(c);
  t->run_ctx = NULL;
  c->region = why;
  dump("release", why);
}

void hrace__acquire(hrace_sync_t *s, const char *why) {
  hrace_thread_t *t = hrace__thread();
  if (t->tid < 0) return;
  hrace_ctx_t *c = t->cur;
  pthread_mutex_lock(&s->mu);
  hrace__vc_join(&c->l, &s->l);
  hrace__vc_join(&c->g, &s->g);
  if (s->base > atomic_load_explicit(&c->base, memory_order_relaxed))
    atomic_store_explicit(&c->base, s->base, memory_order_relaxed);
  pthread_mutex_unlock(&s->mu);
  touch(c);
  t->run_ctx = NULL;
  c->region = why;
  dump("acquire", why);
}

/* Entries of ended task contexts, for reuse. An entry may serve a new task only when the old
 * owner's end is already ordered before the new task's creation (the creator knows its final
 * value): then everything the old owner did happened before the new task anyway, and the new
 * owner's stamps start above it. Otherwise a fresh entry is taken. */
#define FREE_MAX 256
static struct { uint32_t idx; hrace_clk_t last; } free_idx[FREE_MAX];
static unsigned nfree;
/* Entries handed to task contexts. Every context's local part is as long as the largest entry
 * it knows, so entries must stay few: a region that creates many tasks before their ends are
 * known to the creator cannot reuse entries, and without a bound the cost grows with the square
 * of the number of tasks (32000 tasks in one burst took 533 ms, 8000 took 44). */
static unsigned task_entries;
static bool warned_ctx;

hrace_ctx_t *hrace__ctx_new(void) {
  hrace_thread_t *t = hrace__thread();
  hrace_ctx_t *cr = t->cur, *c = malloc(sizeof *c);
  if (!c) abort();
  /* Set before the context is listed: hrace__ctx_base_floor reads it from then on. */
  atomic_init(&c->base, atomic_load_explicit(&cr->base, memory_order_relaxed));
  uint32_t idx = UINT32_MAX;
  pthread_mutex_lock(&ctx_mu);
  for (unsigned i = nfree, tries = 0; i-- > 0 && tries < 8; tries++) {
    uint32_t cand = free_idx[i].idx;
    if (cand < cr->l.n && cr->l.c[cand] >= free_idx[i].last) {
      idx = cand;
      free_idx[i] = free_idx[--nfree];
      break;
    }
  }
  if (idx == UINT32_MAX && task_entries >= (unsigned)(hrace__opt.task_clocks > 0 ? hrace__opt.task_clocks : 0)) {
    bool warn = !warned_ctx;
    warned_ctx = true;
    pthread_mutex_unlock(&ctx_mu);
    free(c);
    if (warn)
      hrace__warn("%ld OpenMP tasks have clocks of their own and no entry could be reused: "
                  "further tasks run on their thread's clock until one can, so races between two "
                  "of them that run on one thread may be missed (HRACE_OPTIONS=task_clocks=N)",
                  hrace__opt.task_clocks);
    return NULL;
  }
  if (idx == UINT32_MAX) task_entries++;
  hrace_list_push_front(&live, &c->live);
  pthread_mutex_unlock(&ctx_mu);
  if (idx == UINT32_MAX) idx = atomic_fetch_add(&next_idx, 1);
  c->idx = idx;
  hrace__vc_init(&c->l, 0);
  hrace__vc_copy(&c->l, &cr->l);
  hrace__vc_grow(&c->l, idx + 1);
  c->l.c[idx]++;                     /* above every stamp of a previous owner */
  hrace__vc_init(&c->g, 0);
  hrace__vc_copy(&c->g, &cr->g);
  c->g.local = &c->l;
  touch(c);
  c->region = "task creation";
  cr->l.c[cr->idx]++;                /* the creator's later accesses are not the task's past */
  touch(cr);
  t->run_ctx = NULL;
  return c;
}

void hrace__ctx_switch(hrace_ctx_t *c) {
  hrace_thread_t *t = hrace__thread();
  if (t->tid >= 0) t->cur = c ? c : &t->base;
  t->run_ctx = NULL;
}

void hrace__ctx_end(hrace_ctx_t *c) {
  pthread_mutex_lock(&ctx_mu);
  hrace_list_remove(&c->live);
  if (nfree < FREE_MAX) free_idx[nfree++] = (typeof(free_idx[0])){ c->idx, c->l.c[c->idx] };
  pthread_mutex_unlock(&ctx_mu);
  hrace__vc_free(&c->l);
  hrace__vc_free(&c->g);
  free(c);
}

hrace_aid_t hrace__local_access(uintptr_t pc, uint16_t flags, uint16_t op, uint32_t atomic_class) {
  hrace_thread_t *t = hrace__thread();
  hrace_ctx_t *c = t->cur;
  hrace_clk_t epoch = c->l.c[c->idx];
  flags |= HRACE_ACC_LOCALCLK;
  unsigned slot = (unsigned)((pc >> 2) ^ flags) & (HRACE_CACHE - 1);
  if (t->cache[slot].pc == pc && t->cache[slot].epoch == epoch && t->cache[slot].idx == c->idx &&
      t->cache[slot].flags == flags && t->cache[slot].id)
    return t->cache[slot].id;
  /* A thread parked for the descriptor sweep runs instrumented code only where libomp does so
   * unannounced (a tree reduction's combine inside a barrier): its cached ids are marked, a new
   * one waits for the sweep to end (clocks/access.h). */
  hrace__access_unpark();
  hrace_access_t a = {
    .exporter = c->idx, .flags = flags, .op = op, .atomic_class = atomic_class,
    .rank = hrace__proc.rank, .thread = t->tid, .pc = pc, .stack = hrace__stack_capture_hook ? hrace__stack_capture_hook(pc) : 0,
    .sync = c->region,
  };
  atomic_init(&a.clk, epoch);
  hrace_aid_t id = hrace__access_new(&a);
  t->cache[slot].pc = pc;
  t->cache[slot].epoch = epoch;
  t->cache[slot].idx = c->idx;
  t->cache[slot].flags = flags;
  t->cache[slot].id = id;
  return id;
}
