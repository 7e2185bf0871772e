/* Access descriptors: what a shadow cell refers to. One descriptor stands for all accesses of
 * one kind made at one code address within one segment of one thread (its stretch between two
 * synchronisation events), or for one remote RMA operation. Shadow cells hold 32-bit ids, not
 * epochs, so that a remote operation's epoch can be fixed once, at its completion, for every
 * location it touched (issued / completed states: docs/rma.md, "The model"; an RMA operation is an
 * interval").
 *
 * Descriptors live in a chunked table whose ids are reused once a sweep has shown them held
 * nowhere (below, and docs/access.md, "Reclaiming descriptors"): memory stays bounded by what
 * the shadow still refers to, however long the run. */
#ifndef HRACE_CLOCKS_ACCESS_H
#define HRACE_CLOCKS_ACCESS_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "clocks/exporter.h"
#include "clocks/vc.h"

typedef uint32_t hrace_aid_t;   /* 0: none */

enum {
  HRACE_ACC_READ = 1u << 0,     /* reads the location */
  HRACE_ACC_WRITE = 1u << 1,    /* modifies it (read-modify-write sets both) */
  HRACE_ACC_ATOMIC = 1u << 2,   /* atomic w.r.t. other accesses of the same atomic_class */
  HRACE_ACC_REMOTE = 1u << 3,   /* an RMA operation (origin may be this process) */
  HRACE_ACC_FOREIGN = 1u << 4,  /* a load / store made by another process (shared memory):
                                   like REMOTE, `loc` names its site, `pc` is meaningless */
  HRACE_ACC_LOCALCLK = 1u << 5, /* stamped with a local thread time: `exporter` is the thread
                                   number in this process, `clk` its local clock entry */
};

typedef struct hrace_access {
  _Atomic hrace_clk_t clk;      /* epoch value; HRACE_CLK_INF while an RMA op is in flight */
  uint32_t exporter;            /* clock entry the epoch belongs to */
  uint16_t flags;               /* HRACE_ACC_* */
  uint16_t op;                  /* label, interpreted by the caller (e.g. "load", "MPI_Put") */
  uint32_t atomic_class;        /* non-zero: accesses of equal class don't race each other */
  int32_t rank;                 /* process that made the access */
  int32_t thread;               /* thread number in that process */
  uint32_t stack;               /* local: interned call stack at the first access (0: none) */
  uintptr_t pc;                 /* local: return address into the code that made it */
  const char *sync;             /* the region it was made in, for reports: local, the event that
                                   began its segment ("MPI_Barrier"); remote, the kind of access
                                   epoch ("an exclusive lock epoch"). Static strings; or NULL */
  const void *loc;              /* remote / foreign: the source location (caller-owned, interned) */
} hrace_access_t;

/* Allocate a descriptor (lock-free; callable from any thread). Fields are copied from *init. */
hrace_aid_t hrace__access_new(const hrace_access_t *init);
hrace_access_t *hrace__access_get(hrace_aid_t id);
/* Descriptors made so far (reused ids included), ids ever handed out (one past the highest),
 * and ids on the free list: for the benchmarks, the tests and the debug summary. */
void hrace__access_counts(uint64_t *made, uint32_t *end, uint32_t *free_ids);

/* The sweep. A caller that can see every holder of an id stops every other thread that could
 * store or take one (docs/access.md, "Reclaiming descriptors", has who holds ids and when it is
 * safe), then
 *   hrace__access_sweep_begin()   start: false when there is nothing worth sweeping yet
 *                                 (the table grew by less than the threshold since the last)
 *                                 or no memory for the marks
 *   hrace__access_mark(id)        for every id held anywhere (0 and ids made after begin are
 *                                 ignored)
 *   hrace__access_sweep_end()     frees every id below begin's end that was not marked and is
 *                                 not in flight (epoch HRACE_CLK_INF: a pending RMA operation,
 *                                 whose holders are not all walked); returns how many.
 * hrace__access_sweep_due() is the cheap test of begin's threshold, for the safe points. */
bool hrace__access_sweep_due(void);
bool hrace__access_sweep_begin(void);
void hrace__access_mark(hrace_aid_t id);
uint32_t hrace__access_sweep_end(void);
/* The sweep as a whole, with its safe-point checks: set by the floor that can see every holder
 * (rma/window.c); NULL before. hrace__access_sweep_point() runs it when one is due, from a
 * point where the calling thread holds no id in the middle of an access: an OpenMP barrier
 * it has just parked in (omp/ompt.c), so that a program that makes no RMA call, or whose RMA
 * calls all come while other threads compute, is swept too (docs/access.md, "When and where"). */
extern void (*hrace__access_sweeper)(void);
static inline void hrace__access_sweep_point(void) {
  if (hrace__access_sweeper && hrace__access_sweep_due()) hrace__access_sweeper();
}

/* The threads that make accesses, as the sweep needs to see them: each may hold ids in its
 * caches and store one into a cell at any access, so a sweep runs only while every one of them
 * but the sweeping thread is *parked*, at a point where it makes no access until the sweep is
 * over (docs/access.md, "Reclaiming descriptors"). A thread parks where a runtime holds it (an
 * OpenMP barrier, running no task: omp/ompt.c) and unparks before it runs application code
 * again, waiting there while a sweep is under way. A thread also registers at its first MPI
 * call (access/sweep.h), so a running slot stands for "may be inside an MPI call" too.
 *   hrace__access_thread_begins(owner)  the calling thread starts making accesses; `owner`
 *                                       is what hrace__access_threads_each hands back (NULL:
 *                                       a thread that cannot be shown; no sweep runs again)
 *   hrace__access_park() / _unpark()    as above (no-ops on threads that never began)
 *   hrace__access_stop_others()         claim the sweep: true when every other thread is
 *                                       parked or gone (they stay so until _resume), false
 *                                       (nothing claimed) else
 *   hrace__access_threads_each(fn)      fn(owner) for every thread not gone */
void hrace__access_thread_begins(void *owner);
void hrace__access_park(void);
void hrace__access_unpark(void);
bool hrace__access_stop_others(void);
void hrace__access_resume(void);
void hrace__access_threads_each(void (*fn)(void *owner));

/* Fix a remote operation's epoch at its completion (release store). */
static inline void hrace__access_complete(hrace_access_t *a, hrace_clk_t c) {
  atomic_store_explicit(&a->clk, c, memory_order_release);
}
/* Did access a happen before the event whose clock is v?
 *   a stamped by an exporter (remote operations): v's global entry decides;
 *   a stamped with a local thread time: v's local part decides when v is a thread of this
 *   process; a clock from a message has no local part and is judged through the exporters'
 *   snapshots (slow, once per MPI-level event). */
static inline bool hrace__access_hb(const hrace_access_t *a, const hrace_vc_t *v) {
  hrace_clk_t c = atomic_load_explicit(&a->clk, memory_order_acquire);
  if (!(a->flags & HRACE_ACC_LOCALCLK)) return hrace__epoch_hb(a->exporter, c, v);
  if (v->local) return hrace__epoch_hb(a->exporter, c, v->local);
  return hrace__exporters_cover(a->exporter, c, v);
}
/* Do a and b conflict: same location assumed; at least one writes, and not both atomic of the
 * same class. */
static inline bool hrace__access_conflict(const hrace_access_t *a, const hrace_access_t *b) {
  if (!((a->flags | b->flags) & HRACE_ACC_WRITE)) return false;
  if ((a->flags & b->flags & HRACE_ACC_ATOMIC) && a->atomic_class == b->atomic_class) return false;
  return true;
}
#endif
