/* Access descriptors, their table and the sweep that gives back ids held nowhere (see
 * access.h; docs/access.md, "Reclaiming descriptors"). */
#include "clocks/access.h"
#include "clocks/table.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>

static hrace_table_t descriptors = HRACE_TABLE_INIT(hrace_access_t);
static _Atomic uint64_t made;   /* descriptors made so far */

hrace_aid_t hrace__access_new(const hrace_access_t *init) {
  hrace_aid_t id = hrace__table_alloc(&descriptors);
  hrace_access_t *a = hrace__table_at(&descriptors, id);
  a->exporter = init->exporter;
  a->flags = init->flags;
  a->op = init->op;
  a->atomic_class = init->atomic_class;
  a->rank = init->rank;
  a->thread = init->thread;
  a->stack = init->stack;
  a->pc = init->pc;
  a->loc = init->loc;
  a->sync = init->sync;
  atomic_fetch_add_explicit(&made, 1, memory_order_relaxed);
  /* Release: whoever reads this id from a shadow cell sees the fields above. */
  atomic_store_explicit(&a->clk, atomic_load_explicit(&init->clk, memory_order_relaxed),
                        memory_order_release);
  return id;
}

hrace_access_t *hrace__access_get(hrace_aid_t id) { return hrace__table_at(&descriptors, id); }

void hrace__access_counts(uint64_t *m, uint32_t *end, uint32_t *free_ids) {
  *m = atomic_load_explicit(&made, memory_order_relaxed);
  *end = hrace__table_end(&descriptors);
  *free_ids = atomic_load_explicit(&descriptors.nfree, memory_order_relaxed);
}

/* ---- the sweep --------------------------------------------------------------------------- */

/* When to sweep: once the descriptors made since the last sweep reach the ids the last sweep
 * kept (so a sweep's cost, a walk over what refers to them, is paid once per as many new
 * descriptors as are live), and never below SWEEP_MIN (a walk of a window's shadow costs about
 * 1 ns per resident granule: bench/README.md). The ids in use then stay below twice the live ones
 * plus SWEEP_MIN. */
#define SWEEP_MIN (1u << 16)
/* Written by the sweeping thread, read by any thread at its sweep points: atomic, relaxed (a
 * stale value only moves a sweep to a later point). */
static _Atomic uint64_t made_at_sweep;  /* `made` when the last sweep ended */
static _Atomic uint64_t kept_at_sweep;  /* ids that sweep kept */
void (*hrace__access_sweeper)(void);

/* Marks of the sweep under way: one bit per id below `mark_end`. */
static uint64_t *marks;
static uint32_t mark_end;
static size_t marks_bytes;

bool hrace__access_sweep_due(void) {
  uint64_t since = atomic_load_explicit(&made, memory_order_relaxed) -
                   atomic_load_explicit(&made_at_sweep, memory_order_relaxed);
  return since >= SWEEP_MIN && since >= atomic_load_explicit(&kept_at_sweep, memory_order_relaxed);
}

bool hrace__access_sweep_begin(void) {
  if (!hrace__access_sweep_due()) return false;
  mark_end = hrace__table_end(&descriptors);
  marks_bytes = ((size_t)mark_end + 63) / 64 * sizeof(uint64_t);
  /* Mapped, not malloc'ed: the sweep may run inside an MPI call that malloc's hooks see, and
   * the pages go back to the system at the end. */
  void *m = mmap(NULL, marks_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return false;
  marks = m;
  /* Free ids are held nowhere, so unmarked: the end frees them again. Taken off the list now,
   * so that nothing allocated during the sweep is among them. */
  hrace__table_drop_free(&descriptors);
  return true;
}

void hrace__access_mark(hrace_aid_t id) {
  if (id && id < mark_end) marks[id / 64] |= 1ull << (id % 64);
}

uint32_t hrace__access_sweep_end(void) {
  uint32_t freed = 0, kept = 0;
  /* Highest ids first onto the stack, so the lowest come off first: reused descriptors stay in
   * the table's first pages. */
  for (uint32_t id = mark_end; id-- > 1;) {
    if (marks[id / 64] >> (id % 64) & 1) {
      kept++;
      continue;
    }
    hrace_access_t *a = hrace__table_at(&descriptors, id);
    if (atomic_load_explicit(&a->clk, memory_order_acquire) == HRACE_CLK_INF) {
      kept++;
      continue;
    }
    atomic_store_explicit(&a->clk, 0, memory_order_relaxed);   /* never taken as in flight */
    a->flags = 0;
    hrace__table_free(&descriptors, id);
    freed++;
  }
  munmap(marks, marks_bytes);
  marks = NULL;
  mark_end = 0;
  atomic_store_explicit(&made_at_sweep, atomic_load_explicit(&made, memory_order_relaxed),
                        memory_order_relaxed);
  atomic_store_explicit(&kept_at_sweep, kept, memory_order_relaxed);
  return freed;
}

/* ---- the threads: parking ------------------------------------------------------------------
 *
 * Each thread that makes accesses has a slot: its state (running, parked or gone) and its
 * owner. Parking and claiming a sweep are a Dekker handshake over sequentially consistent
 * stores and loads:
 *   sweeper:   sweeping = 1; then every other slot must be parked or gone, else sweeping = 0
 *   unparker:  state = running; then if sweeping: state = parked, wait until sweeping == 0,
 *              start over
 * Either the sweeper sees the thread running (and gives up) or the thread sees the sweep (and
 * waits): never both go on. A slot being filled in reads as running; a thread registers as
 * parked and then unparks, so a sweep that missed its slot finds it waiting. */
enum { RUNNING, PARKED, GONE };
#define MAX_SLOTS 4096

static struct slot {
  _Atomic int state;
  void *owner;
} slots[MAX_SLOTS];
static _Atomic unsigned nslots;
static _Atomic int overflow;      /* a thread got no slot: no sweep can see it, none runs */
static _Atomic int sweeping;
static __thread int mine __attribute__((tls_model("initial-exec"))) = -1;
/* The calling thread claimed the sweep under way: its own unpark must not wait for it (a
 * signal handler between the claim and the blocking of signals, rma/window.c). */
static __thread bool claimed __attribute__((tls_model("initial-exec")));
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void gone(void *slot) { atomic_store(&((struct slot *)slot)->state, GONE); }
static void make_key(void) { pthread_key_create(&key, gone); }

void hrace__access_thread_begins(void *owner) {
  if (mine >= 0) return;
  if (!owner) {                  /* a thread whose caches the caller cannot show */
    atomic_store(&overflow, 1);
    return;
  }
  unsigned i = atomic_load(&nslots);
  do {
    if (i >= MAX_SLOTS) {
      atomic_store(&overflow, 1);
      return;
    }
  } while (!atomic_compare_exchange_weak(&nslots, &i, i + 1));
  struct slot *s = &slots[i];
  s->owner = owner;
  atomic_store(&s->state, PARKED);
  mine = (int)i;
  pthread_once(&key_once, make_key);
  pthread_setspecific(key, s);   /* at the thread's exit: gone */
  hrace__access_unpark();
}

void hrace__access_park(void) {
  if (mine >= 0) atomic_store(&slots[mine].state, PARKED);
}

void hrace__access_unpark(void) {
  if (mine < 0) return;
  _Atomic int *st = &slots[mine].state;
  if (claimed) {
    atomic_store(st, RUNNING);
    return;
  }
  for (;;) {
    atomic_store(st, RUNNING);
    if (!atomic_load(&sweeping)) return;
    atomic_store(st, PARKED);
    while (atomic_load(&sweeping)) sched_yield();
  }
}

bool hrace__access_stop_others(void) {
  if (atomic_load(&overflow)) return false;
  int expect = 0;
  if (!atomic_compare_exchange_strong(&sweeping, &expect, 1)) return false;
  unsigned n = atomic_load(&nslots);
  for (unsigned i = 0; i < n; i++)
    if ((int)i != mine && atomic_load(&slots[i].state) == RUNNING) {
      atomic_store(&sweeping, 0);
      return false;
    }
  claimed = true;
  return true;
}

void hrace__access_resume(void) {
  claimed = false;
  atomic_store(&sweeping, 0);
}

void hrace__access_threads_each(void (*fn)(void *owner)) {
  unsigned n = atomic_load(&nslots);
  for (unsigned i = 0; i < n; i++)
    if (atomic_load(&slots[i].state) != GONE && slots[i].owner) fn(slots[i].owner);
}
