/* Happens-before, the operations every layer calls to order events (docs/design.md, "Layers"
 * and "Happens-before: the clock model"): signal / wait between processes, release / acquire
 * between threads through synchronisation objects, explicit tasks' contexts. Before it
 * publishes, hrace__signal_clock delivers the loads and stores forwarded to other processes'
 * shared-memory segments (core/hooks.h, hrace__fwd_flush_hook). */
#ifndef HRACE_CORE_HB_H
#define HRACE_CORE_HB_H
#include <pthread.h>
#include <stdint.h>
#include "clocks/vc.h"

struct hrace_ctx;
typedef struct hrace_ctx hrace_ctx_t;

/* Between processes. Signal: the caller publishes hrace__signal_clock() (sends it, or deposits
 * it at a lock), then calls hrace__signal_done, which records the snapshot and ticks, so that
 * later accesses are not covered. Wait: join a received clock (and the local knowledge it
 * brings back about this process's exporters). */
const hrace_vc_t *hrace__signal_clock(void);
/* hrace__signal_clock() as hrace__clock_len() entries at dst (zero-filled). */
void hrace__signal_clock_out(hrace_clk_t *dst);
/* hrace__signal_clock() for a frame: its first hrace__proc.wire_len entries at dst
 * (zero-filled). Returns the length m of the whole clock up to its last non-zero entry when
 * that is beyond wire_len (entries [wire_len, m) of *all must travel too), else 0. Only a
 * process where some clock may have a non-zero entry beyond wire_len scans (runtime.c,
 * tail_live). */
uint32_t hrace__signal_clock_wire(hrace_clk_t *dst, const hrace_clk_t **all);
void hrace__signal_done(const char *why);
void hrace__wait(const hrace_clk_t *c, uint32_t n, const char *why);

/* Between threads of this process: a synchronisation object (mutex, barrier generation,
 * parallel region, task) holds the join of the clocks released into it. */
typedef struct hrace_sync {
  pthread_mutex_t mu;
  hrace_vc_t l, g;
  uint32_t base;             /* the latest wire base g covers (hrace_ctx_t.base) */
} hrace_sync_t;
void hrace__sync_obj_init(hrace_sync_t *s);
void hrace__sync_obj_destroy(hrace_sync_t *s);
void hrace__release(hrace_sync_t *s, const char *why);   /* s joins the caller's clock; tick */
void hrace__acquire(hrace_sync_t *s, const char *why);   /* the caller joins s */

/* Explicit tasks' contexts: created from the creating context (the creation edge), run by
 * switching the thread's current context, ended when the task completes. */
/* A copy of the caller's context (the caller ticks), or NULL when `task_clocks` contexts are
 * live already and no entry can be reused: the task then runs on its thread's clock. */
hrace_ctx_t *hrace__ctx_new(void);
void hrace__ctx_switch(hrace_ctx_t *c);           /* NULL: back to the thread's own */
void hrace__ctx_end(hrace_ctx_t *c);              /* its index may serve a later task */

/* Wire bases (mpi/coll.c, docs/mpi.md "Clocks relative to a base"): the calling context has
 * joined base `num`'s collective; the smallest base any live context (every thread's own, every
 * explicit task's) is known to cover. A base may be dropped once it is below that floor. */
void hrace__ctx_know_base(uint32_t num);
uint32_t hrace__ctx_base_floor(void);
/* The calling thread runs no application code (the MPI library made it inside an MPI call):
 * its own context leaves the registry, so that it keeps no base alive. */
void hrace__ctx_unlive_thread(void);
#endif
