/* The OMPT tool: OpenMP synchronisation as happens-before between the threads of a process.
 * libomp finds ompt_start_tool here (through OMP_TOOL_LIBRARIES or the preload alone).
 *
 *   event (OMPT callback)              action (core/hb.h: release = publish + tick, acquire = join)
 *   parallel begin                     encountering thread releases into region.fork
 *   implicit task begin (worker)       acquire region.fork
 *   implicit task end                  release into region.join
 *   parallel end                       encountering thread acquires region.join
 *   barrier begin (any kind)           release into region.barrier[n % 2]   (n: this thread's
 *   barrier end                        acquire region.barrier[n % 2] and      barrier count; two
 *                                      region.tasks_done; n++                 generations, as a
 *                                                                             thread can reach
 *                                                                             n+1 before another
 *                                                                             leaves n)
 *   mutex released (lock, nest lock,   release into mutex[wait_id]
 *     critical, ordered)
 *   mutex acquired                     acquire mutex[wait_id]
 *   task create                        the task's own clock context starts as a copy of the
 *                                      creator's (which then ticks)
 *   task switch (schedule)             the thread runs the next task's context
 *   task starts (schedule, first time) acquire its dependences:
 *                                      in: dep[addr].out; out/inout: dep[addr].out + .in;
 *                                      mutexinoutset: dep[addr].mutex
 *   task completes (schedule)          release into parent.children, each enclosing taskgroup,
 *                                      region.tasks_done, and dep[addr] (.in for in, .out for
 *                                      out/inout, .mutex for mutexinoutset)
 *   taskwait end                       acquire task.children
 *   taskgroup begin / end              push a group / acquire it and pop
 *   masked, single, sections, loop,    nothing: their only synchronisation is the barriers,
 *     flush, reduction                 which arrive as barrier events (master has none)
 *
 * Explicit tasks have clock contexts of their own (core/hb.h), so two tasks that happen to run
 * on one thread are not ordered by that accident, and verdicts don't depend on scheduling. */
#include <omp-tools.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "clocks/access.h"
#include "core/thread.h"
#include "core/hb.h"

typedef struct region {
  _Atomic int refs;
  hrace_sync_t fork, join, barrier[2], tasks_done;
} region_t;

typedef struct group {             /* a taskgroup */
  _Atomic int refs;
  struct group *outer;
  hrace_sync_t done;
} group_t;

typedef struct task {
  _Atomic int refs;
  struct task *parent;
  region_t *region;
  group_t *group;                  /* innermost taskgroup this task belongs to / has opened */
  unsigned barriers;               /* implicit tasks: barriers passed */
  int started, implicit;
  hrace_ctx_t *ctx;                /* explicit tasks: their own clock context, or NULL when the
                                      bound on task contexts was reached (core/hb.h) */
  hrace_sync_t created;            /* without a context: the creation edge, acquired at start */
  hrace_sync_t children;
  unsigned ndeps;
  ompt_dependence_t *deps;
} task_t;

/* ---- reference counting: tasks can outlive their parent, workers their region's end ---- */

static region_t *region_new(void) {
  region_t *r = calloc(1, sizeof *r);
  if (!r) abort();
  atomic_init(&r->refs, 1);
  hrace__sync_obj_init(&r->fork);
  hrace__sync_obj_init(&r->join);
  hrace__sync_obj_init(&r->barrier[0]);
  hrace__sync_obj_init(&r->barrier[1]);
  hrace__sync_obj_init(&r->tasks_done);
  return r;
}
static region_t *region_ref(region_t *r) { if (r) atomic_fetch_add(&r->refs, 1); return r; }
static void region_unref(region_t *r) {
  if (!r || atomic_fetch_sub(&r->refs, 1) != 1) return;
  hrace__sync_obj_destroy(&r->fork);
  hrace__sync_obj_destroy(&r->join);
  hrace__sync_obj_destroy(&r->barrier[0]);
  hrace__sync_obj_destroy(&r->barrier[1]);
  hrace__sync_obj_destroy(&r->tasks_done);
  free(r);
}

static group_t *group_ref(group_t *g) { if (g) atomic_fetch_add(&g->refs, 1); return g; }
static void group_unref(group_t *g) {
  while (g && atomic_fetch_sub(&g->refs, 1) == 1) {
    group_t *outer = g->outer;
    hrace__sync_obj_destroy(&g->done);
    free(g);
    g = outer;
  }
}

static task_t *task_new(task_t *parent, region_t *region, int implicit) {
  task_t *t = calloc(1, sizeof *t);
  if (!t) abort();
  atomic_init(&t->refs, 1);
  t->parent = parent;
  if (parent) atomic_fetch_add(&parent->refs, 1);
  t->region = region_ref(region);
  t->group = group_ref(parent ? parent->group : NULL);
  t->implicit = implicit;
  hrace__sync_obj_init(&t->created);
  hrace__sync_obj_init(&t->children);
  return t;
}
static void task_unref(task_t *t) {
  while (t && atomic_fetch_sub(&t->refs, 1) == 1) {
    task_t *parent = t->parent;
    region_unref(t->region);
    group_unref(t->group);
    if (t->ctx) hrace__ctx_end(t->ctx);
    hrace__sync_obj_destroy(&t->created);
    hrace__sync_obj_destroy(&t->children);
    free(t->deps);
    free(t);
    t = parent;
  }
}

/* ---- sync objects keyed by address: mutexes (wait_id) and dependences (variable address) ---- */

typedef struct keyed {
  uint64_t key;
  hrace_sync_t a, b;               /* mutex: a; dependence: a = out, b = in */
  hrace_sync_t mutex;              /* dependence: mutexinoutset */
  _Atomic uint64_t tickets;        /* mutex: acquisitions so far (in lock order) */
  _Atomic uint64_t released;       /* mutex: holders whose release is deposited in `a` */
  uint64_t holder;                 /* mutex: the current holder's ticket */
} keyed_t;

typedef struct table { pthread_mutex_t mu; hrace_map_t m; } table_t;   /* key -> keyed_t */
static table_t mutexes = { PTHREAD_MUTEX_INITIALIZER, HRACE_MAP_INIT };
static table_t depvars = { PTHREAD_MUTEX_INITIALIZER, HRACE_MAP_INIT };

static keyed_t *lookup(table_t *t, uint64_t key) {
  pthread_mutex_lock(&t->mu);
  keyed_t *k = hrace_map_get(&t->m, key);
  if (!k) {
    k = calloc(1, sizeof *k);
    if (!k) abort();
    k->key = key;
    hrace__sync_obj_init(&k->a);
    hrace__sync_obj_init(&k->b);
    hrace__sync_obj_init(&k->mutex);
    hrace_map_put(&t->m, key, k);
  }
  pthread_mutex_unlock(&t->mu);
  return k;   /* entries are never removed: a reused address only adds edges already implied */
}

/* ---- callbacks ---- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) { hrace__thread(); }

static void on_parallel_begin(ompt_data_t *task_data, const ompt_frame_t *frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr) {
  if (requested > 1 && hrace__threads_coming_hook) hrace__threads_coming_hook();
  region_t *r = region_new();
  parallel_data->ptr = r;
  hrace__release(&r->fork, "the fork of a parallel region");
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *task_data, int flags,
                            const void *codeptr) {
  region_t *r = parallel_data->ptr;
  if (!r) return;
  hrace__acquire(&r->join, "the join of a parallel region");
  hrace__acquire(&r->tasks_done, "the join of a parallel region");
  parallel_data->ptr = NULL;
  region_unref(r);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual, unsigned int index,
                             int flags) {
  if (endpoint == ompt_scope_begin) {
    hrace__access_unpark();             /* a worker leaves the pool for the region */
    region_t *r = (flags & ompt_task_initial) || !parallel_data ? NULL : parallel_data->ptr;
    task_t *t = task_new(NULL, r, 1);
    t->started = 1;
    task_data->ptr = t;
    if (r) hrace__thread()->omp_num1 = (int)index + 1;   /* as omp_get_thread_num() says */
    if (r) hrace__acquire(&r->fork, "the fork of a parallel region");
  } else {
    task_t *t = task_data->ptr;
    if (!t) return;
    if (t->region) hrace__release(&t->region->join, "the end of a parallel region");
    hrace_thread_t *self = hrace__thread();
    /* A worker goes back to the pool: no application code until its next implicit task (the
     * descriptor sweep, clocks/access.h). The primary thread goes on with the code after the
     * region. */
    if (t->region && self->omp_num1 > 1) hrace__access_park();
    if (t->region) self->omp_num1 = 0;
    task_data->ptr = NULL;
    task_unref(t);
  }
}

static int is_barrier(ompt_sync_region_t kind) {
  switch (kind) {
  case ompt_sync_region_barrier:
  case ompt_sync_region_barrier_implicit:
  case ompt_sync_region_barrier_explicit:
  case ompt_sync_region_barrier_implementation:
  case ompt_sync_region_barrier_implicit_workshare:
  case ompt_sync_region_barrier_implicit_parallel:
  case ompt_sync_region_barrier_teams:
    return 1;
  default:
    return 0;
  }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr) {
  task_t *t = task_data ? task_data->ptr : NULL;
  if (!t) return;
  if (is_barrier(kind)) {
    region_t *r = t->region;
    if (!r) return;                           /* a team of one */
    hrace_sync_t *gen = &r->barrier[t->barriers & 1];
    if (endpoint == ompt_scope_begin) {
      hrace__thread_exporter_yield();   /* before the release: takers after it know it */
      hrace__release(gen, "an OpenMP barrier");
      hrace__thread()->in_barrier = true;
      hrace__access_park();             /* no application code until the end or a task */
      hrace__access_sweep_point();      /* the last to arrive may sweep (clocks/access.h) */
    } else {
      hrace__access_unpark();
      hrace__thread()->in_barrier = false;
      hrace__acquire(gen, "an OpenMP barrier");
      hrace__acquire(&r->tasks_done, "an OpenMP barrier");
      t->barriers++;
    }
  } else if (kind == ompt_sync_region_taskwait) {
    if (endpoint == ompt_scope_end) hrace__acquire(&t->children, "taskwait");
  } else if (kind == ompt_sync_region_taskgroup) {
    if (endpoint == ompt_scope_begin) {
      group_t *g = calloc(1, sizeof *g);
      if (!g) abort();
      atomic_init(&g->refs, 1);
      g->outer = t->group;                    /* takes over t's reference to the outer group */
      hrace__sync_obj_init(&g->done);
      t->group = g;
    } else if (t->group) {
      group_t *g = t->group;
      hrace__acquire(&g->done, "the end of a taskgroup");
      t->group = group_ref(g->outer);
      group_unref(g);
    }
  }
}

/* A reduction scope (libomp's critical or "empty" combine, KMP_FORCE_REDUCTION): the
 * combine of private copies is the runtime's business, under its own lock. */
static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr) {
  hrace_thread_t *t = hrace__thread();
  t->in_reduction = endpoint == ompt_scope_begin;
  if (t->in_reduction) hrace__access_unpark();   /* the combine runs instrumented code */
  else if (t->in_barrier) hrace__access_park();
}

/* libomp reports a release after the lock is free again (kmp_csupport.cpp: the callback
 * follows the release), so the next holder's "acquired" can run before the previous holder's
 * "released" has deposited its clock: a false race, seen once in five runs of
 * hyb_critical_norace. Tickets restore the order: acquisitions take tickets in lock order (each
 * callback runs while its thread holds the lock), and an acquirer waits until the holder before
 * it has deposited. That holder is past the lock and only finishing its callback, so the wait
 * is short and cannot deadlock. */
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr) {
  keyed_t *k = lookup(&mutexes, wait_id);
  uint64_t t = atomic_fetch_add_explicit(&k->tickets, 1, memory_order_relaxed);
  for (unsigned spin = 0; atomic_load_explicit(&k->released, memory_order_acquire) < t; spin++)
    if (spin > 64) sched_yield();
  k->holder = t;
  hrace__acquire(&k->a, "acquiring an OpenMP lock, critical or ordered");
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr) {
  keyed_t *k = lookup(&mutexes, wait_id);
  hrace__release(&k->a, "releasing an OpenMP lock, critical or ordered");
  atomic_store_explicit(&k->released, k->holder + 1, memory_order_release);
}

static void on_task_create(ompt_data_t *parent_data, const ompt_frame_t *frame,
                           ompt_data_t *new_data, int flags, int has_deps, const void *codeptr) {
  if (flags & ompt_task_initial) return;
  task_t *parent = parent_data ? parent_data->ptr : NULL;
  task_t *t = task_new(parent, parent ? parent->region : NULL, 0);
  new_data->ptr = t;
  t->ctx = hrace__ctx_new();               /* the creation edge: a copy of the creator's clock */
  if (!t->ctx) hrace__release(&t->created, "task creation");
}

static void on_dependences(ompt_data_t *task_data, const ompt_dependence_t *deps, int ndeps) {
  task_t *t = task_data ? task_data->ptr : NULL;
  if (!t || ndeps <= 0) return;
  t->deps = malloc(ndeps * sizeof *deps);
  if (!t->deps) abort();
  memcpy(t->deps, deps, ndeps * sizeof *deps);
  t->ndeps = (unsigned)ndeps;
}

static uint64_t dep_key(const ompt_dependence_t *d) { return (uint64_t)(uintptr_t)d->variable.ptr; }

/* Runs in the task's own context (the caller switched to it). */
static void task_starts(task_t *t) {
  t->started = 1;
  if (!t->ctx) hrace__acquire(&t->created, "the start of a task");
  for (unsigned i = 0; i < t->ndeps; i++) {
    keyed_t *k = lookup(&depvars, dep_key(&t->deps[i]));
    switch (t->deps[i].dependence_type) {
    case ompt_dependence_type_in:
      hrace__acquire(&k->a, "depend(in)");
      break;
    case ompt_dependence_type_mutexinoutset:
      hrace__acquire(&k->a, "depend(mutexinoutset)");
      hrace__acquire(&k->mutex, "depend(mutexinoutset)");
      break;
    default:                                  /* out, inout, inoutset, source, sink */
      hrace__acquire(&k->a, "depend(out)");
      hrace__acquire(&k->b, "depend(out)");
    }
  }
}

static void task_completes(task_t *t) {
  if (t->parent) hrace__release(&t->parent->children, "the completion of a task");
  for (group_t *g = t->group; g; g = g->outer) hrace__release(&g->done, "the completion of a task");
  if (t->region) hrace__release(&t->region->tasks_done, "the completion of a task");
  for (unsigned i = 0; i < t->ndeps; i++) {
    keyed_t *k = lookup(&depvars, dep_key(&t->deps[i]));
    switch (t->deps[i].dependence_type) {
    case ompt_dependence_type_in:
      hrace__release(&k->b, "depend(in) done");
      break;
    case ompt_dependence_type_mutexinoutset:
      hrace__release(&k->mutex, "depend(mutexinoutset) done");
      hrace__release(&k->b, "depend(mutexinoutset) done");
      break;
    default:
      hrace__release(&k->a, "depend(out) done");
    }
  }
}

/* Runs on the thread that executed the task, still in the task's context. */
static void on_task_schedule(ompt_data_t *prior_data, ompt_task_status_t prior_status,
                             ompt_data_t *next_data) {
  task_t *prior = prior_data ? prior_data->ptr : NULL;
  if (prior && !prior->implicit &&
      (prior_status == ompt_task_complete || prior_status == ompt_task_late_fulfill)) {
    hrace__ctx_switch(prior->ctx);
    task_completes(prior);
    prior_data->ptr = NULL;
    task_unref(prior);
  }
  task_t *next = next_data ? next_data->ptr : NULL;
  /* A thread waiting in a barrier runs tasks: parked only between them (the descriptor
   * sweep, clocks/access.h). */
  if (hrace__thread()->in_barrier) {
    if (next && !next->implicit) hrace__access_unpark();
    else hrace__access_park();
  }
  /* The next context may reuse the stack below here, dead frames of the one before. */
  if (hrace__ctx_switch_hook) hrace__ctx_switch_hook();
  hrace__ctx_switch(next && !next->implicit ? next->ctx : NULL);
  if (next && !next->implicit && !next->started) task_starts(next);
}

/* ---- registration ---- */

static int tool_init(ompt_function_lookup_t lookup_fn, int initial_device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup_fn("ompt_set_callback");
  if (!set) return 0;
  set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
  set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
  set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
  set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set(ompt_callback_dependences, (ompt_callback_t)on_dependences);
  set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
  set(ompt_callback_reduction, (ompt_callback_t)on_reduction);
  atomic_store(&hrace__ompt_active, 1);
  return 1;   /* keep the tool active */
}

static void tool_fini(ompt_data_t *data) {}

HRACE_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  static ompt_start_tool_result_t result = { tool_init, tool_fini, { 0 } };
  return &result;
}
