/* Per-thread state of the hrace runtime: the thread's clock contexts (its own and explicit
 * OpenMP tasks'), its exporter entry, re-entry depth and descriptor cache, reached through
 * initial-exec TLS.
 *
 * Clock model (docs/design.md, "Happens-before: the clock model"): each thread has a local part
 * over the threads of its process (OpenMP synchronisation joins it) and a global part over
 * exporters (threads that made an MPI synchronisation call; clocks/exporter.h). Only the global
 * part travels between processes; local accesses are related to it through the exporters'
 * snapshots. */
#ifndef HRACE_CORE_THREAD_H
#define HRACE_CORE_THREAD_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/compiler.h"
#include "base/list.h"
#include "clocks/access.h"
#include "clocks/vc.h"

/* A clock context: what runs on a thread at a time. The thread's own (its implicit task), or an
 * explicit OpenMP task's: tasks carry their own clocks, so two tasks that happen to run on one
 * thread are not ordered by that accident. `idx` is the context's entry in the local part. */
typedef struct hrace_ctx {
  uint32_t idx;
  /* The latest wire base (mpi/coll.c) this context's global part is known to cover: set when
   * the context joins the base's collective, carried by release / acquire and task creation,
   * never more than the context knows (a join it does not track only leaves it lower). Read by
   * other threads (hrace__ctx_base_floor): atomic. */
  _Atomic uint32_t base;
  hrace_list_t live;         /* the registry of live contexts (runtime.c) */
  const char *region;        /* the last synchronisation event of this context (reports) */
  hrace_vc_t l;              /* local clock part: entry per context of this process */
  hrace_vc_t g;              /* global clock part: entry per exporter; g.local = &l */
  /* The clock's version: a stamp unique in the process, new at every change of l or g (all of
   * them are in core/runtime.c). Equal versions of one context are equal clocks: one compare
   * where a key holds the clock (rma/ops.c, "Repeated operations"). */
  uint64_t ver;
} hrace_ctx_t;

#define HRACE_CACHE 64
typedef struct hrace_thread {
  int tid;                   /* thread number in this process (0: the initial thread) */
  int depth;                 /* re-entry depth of hrace's wrappers on this thread */
  int reply_tag;             /* tag of replies to this thread's requests (core/chan.h) */
  uint32_t exporter;         /* global clock entry, once the thread has published (else ~0) */
  hrace_clk_t published;     /* the exporter entry's value: monotone across contexts */
  hrace_clk_t snapped;       /* the publication whose snapshot is recorded */
  /* The snapshot history implies every publication of context run_ctx until its local part
   * changes other than by the tick of a publication (hrace__exporter_snapshot): set at a
   * snapshot, cleared by every other change of the current context's local part and by a
   * context switch; valid while hrace__exporters_gen equals run_gen. */
  hrace_ctx_t *run_ctx;
  unsigned run_gen;
  /* Inside an OpenMP barrier (between its begin and end events) / a reduction scope: libomp
   * runs instrumented code there (the tree reduction's combiner) under synchronisation of its
   * own that OMPT does not show; full mode does not check those accesses (access/full.h). */
  /* The three flags as one word too (`unusual`, 0 when none is set): full mode's callbacks
   * test them with one compare (access/full.c, full_fast). Written only as the flags. */
  union {
    struct {
      bool in_barrier, in_reduction;
      bool in_runtime_copy;  /* filling a gcc task's argument block (omp/taskalloc.c) */
      bool unusual_spare;    /* never set */
    };
    uint32_t unusual;
  };
  int omp_num1;              /* 1 + the thread's number in its OpenMP team while it runs an
                                implicit task of a parallel region (omp_get_thread_num()),
                                0 outside: reports name threads by it (access/thread.h) */
  hrace_ctx_t base;          /* the thread's own context (idx == tid) */
  hrace_ctx_t *cur;          /* the context running now: &base or an explicit task's */
  /* Descriptor cache for the current segment, keyed by context, code address and kind. */
  struct { uintptr_t pc; hrace_clk_t epoch; uint32_t idx; uint16_t flags; hrace_aid_t id; } cache[HRACE_CACHE];
} hrace_thread_t;

/* The calling thread's state, made on first use. Inline: every wrapper and clock operation
 * asks, several times per message. */
extern __thread hrace_thread_t hrace__self __attribute__((tls_model("initial-exec")));
extern __thread bool hrace__self_ready __attribute__((tls_model("initial-exec")));
hrace_thread_t *hrace__thread_first(void);
static inline hrace_thread_t *hrace__thread(void) {
  if (HRACE_LIKELY(hrace__self_ready)) return &hrace__self;
  return hrace__thread_first();
}

/* The calling thread's clock as a view for checks (global part, pointing at its local part). */
static inline const hrace_vc_t *hrace__thread_view(void) { return &hrace__thread()->cur->g; }
/* The calling thread's global clock entry, and that entry's current value: what a completion
 * made now by this thread (unlock, flush, fence) is stamped with. Makes the thread an exporter. */
uint32_t hrace__thread_exporter(void);
/* At an OpenMP barrier: the calling thread gives up its exporter entry, which a thread ordered
 * after the barrier may take (clocks/exporter.h, hrace__exporter_release). */
void hrace__thread_exporter_yield(void);
hrace_clk_t hrace__thread_epoch(void);

/* Full mode (access/full.h) as the floors that see threads come and go reach it: set by
 * access/full.c at load; NULL in builds without it. Defined in core/pthread.c.
 *   hrace__threads_coming_hook   a second thread is about to run (OpenMP fork, pthread_create)
 *   hrace__ctx_switch_hook       the calling thread's clock context is about to change (task)
 *   hrace__mem_fresh_hook        [a, a+n) has a new owner (an OpenMP task descriptor) */
extern void (*hrace__threads_coming_hook)(void);
extern void (*hrace__ctx_switch_hook)(void);
extern void (*hrace__mem_fresh_hook)(uintptr_t a, size_t n);
/* OMPT delivers events (omp/ompt.c's tool is initialised). */
extern _Atomic int hrace__ompt_active;
/* OpenMP runs without OMPT (OMP_TOOL=disabled, or a runtime without it): the threads'
 * synchronisation is unseen, so no race between two threads of the process is reported. */
extern _Atomic int hrace__thread_sync_unseen;
/* Called when a second thread starts running instrumented code: is OpenMP loaded while OMPT
 * is not active? Then sets hrace__thread_sync_unseen and warns, once; returns it. */
int hrace__thread_sync_unseen_check(void);

/* The descriptor of the calling thread's access of kind (flags, op) at code address pc in its
 * current segment: cached, created on first use. */
hrace_aid_t hrace__local_access(uintptr_t pc, uint16_t flags, uint16_t op, uint32_t atomic_class);
#endif
