/* Process and thread state of the hrace runtime, and the operations every layer shares:
 * clocks (signal / wait between processes, release / acquire between threads), per-thread
 * access descriptors, op labels.
 *
 * Clock model (DESIGN "Clocks: hybrid, precise, compact"; docs/design.md): each thread has a
 * local part over the threads of its process (OpenMP synchronisation joins it) and a global
 * part over exporters (threads that made an MPI synchronisation call; clocks/exporter.h). Only
 * the global part travels between processes; local accesses are related to it through the
 * exporters' snapshots. */
#ifndef HRACE_CORE_RUNTIME_H
#define HRACE_CORE_RUNTIME_H
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "base/compiler.h"
#include "clocks/access.h"
#include "clocks/vc.h"

/* Labels of accesses (hrace_access_t.op). */
#define HRACE_OPS(X) \
  X(LOAD, "load") X(STORE, "store") X(ATOMIC_LOAD, "atomic load") X(ATOMIC_STORE, "atomic store") \
  X(ATOMIC_RMW, "atomic update") X(PUT, "MPI_Put") X(GET, "MPI_Get") X(ACC, "MPI_Accumulate") \
  X(GET_ACC, "MPI_Get_accumulate") X(FOP, "MPI_Fetch_and_op") X(CAS, "MPI_Compare_and_swap") \
  X(RPUT, "MPI_Rput") X(RGET, "MPI_Rget") X(RACC, "MPI_Raccumulate") X(RGET_ACC, "MPI_Rget_accumulate")
enum hrace_op {
#define X(e, s) HRACE_OP_##e,
  HRACE_OPS(X)
#undef X
  HRACE_OP_COUNT
};
const char *hrace__op_name(unsigned op);

typedef struct hrace_proc {
  int rank, size;            /* in MPI_COMM_WORLD; rank -1 before MPI_Init */
  bool mpi_ready;            /* between our MPI_Init and MPI_Finalize wrappers */
  MPI_Comm world_shadow;     /* clock exchanges of MPI_COMM_WORLD's collectives */
  uint32_t clock_len;        /* entries of a clock (nprocs * exporter slots) */
  uint32_t wire_len;         /* its first entries, which every point-to-point frame carries
                              * (nprocs * wire_slots); the rest travel only when non-zero */
  int thread_level;          /* the MPI thread level provided (MULTIPLE until MPI_Init): below
                              * MULTIPLE the application never makes two MPI calls at once */
} hrace_proc_t;

extern hrace_proc_t hrace__proc;

/* A clock context: what runs on a thread at a time. The thread's own (its implicit task), or an
 * explicit OpenMP task's: tasks carry their own clocks, so two tasks that happen to run on one
 * thread are not ordered by that accident. `idx` is the context's entry in the local part. */
typedef struct hrace_ctx {
  uint32_t idx;
  const char *region;        /* the last synchronisation event of this context (reports) */
  hrace_vc_t l;              /* local clock part: entry per context of this process */
  hrace_vc_t g;              /* global clock part: entry per exporter; g.local = &l */
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
/* (Before it publishes, hrace__signal_clock delivers the loads and stores forwarded to other
 * processes' shared-memory segments: core/hooks.h, hrace__fwd_flush_hook.) */
void hrace__wait(const hrace_clk_t *c, uint32_t n, const char *why);
/* Does the application make at most one MPI call at a time? True when it asked for a thread
 * level below MPI_THREAD_MULTIPLE (MPI-3.1 Sec. 12.4.3: SERIALIZED calls never overlap,
 * FUNNELED and SINGLE come from one thread); state that only application threads touch inside
 * MPI calls then needs no lock. */
static inline bool hrace__mpi_serial(void) {
  int l = hrace__proc.thread_level;
  return l == MPI_THREAD_SINGLE || l == MPI_THREAD_FUNNELED || l == MPI_THREAD_SERIALIZED;
}
/* Length of a clock in a message (same at every process). */
static inline uint32_t hrace__clock_len(void) { return hrace__proc.clock_len; }

/* Between threads of this process: a synchronisation object (mutex, barrier generation,
 * parallel region, task) holds the join of the clocks released into it. */
typedef struct hrace_sync {
  pthread_mutex_t mu;
  hrace_vc_t l, g;
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

/* After MPI_Init: rank, size and the thread level the application asked for. */
void hrace__runtime_mpi_init(int rank, int size, int required);
/* A communicator of parent's members for hrace's own use, made at MPI_Init (collective over
 * parent). Not MPI_Comm_dup: Open MPI 4.1 agrees on a dup's context id with a non-blocking
 * allreduce of coll/libnbc, whose progress callback then stays registered for the run, about
 * 20 instructions in every opal_progress() of a program that never asked for it (callgrind:
 * 21 per call, ~380000 calls in a 20000-message ping-pong). MPI_Comm_create_group agrees with
 * point-to-point messages instead. */
int hrace__comm_private(MPI_Comm parent, int tag, MPI_Comm *out);
/* Wait for a request of hrace's own by polling (MPI_Test, then yielding the core between
 * tries: ranks may outnumber cores, and the peer may need one to progress). If it is not done
 * after 10 s, late(arg) is called once, to name the wait rather than hang silently; the wait
 * goes on. Returns MPI_Test's error, if any. */
int hrace__poll_wait(MPI_Request *r, MPI_Status *st, void (*late)(const void *), const void *arg);

/* The descriptor of the calling thread's access of kind (flags, op) at code address pc in its
 * current segment: cached, created on first use. */
hrace_aid_t hrace__local_access(uintptr_t pc, uint16_t flags, uint16_t op, uint32_t atomic_class);

/* Lazy runtime init (options, logging); safe to call from any entry point, any time. */
void hrace__runtime_init(void);
/* Mark the calling thread as hrace's own (the progress thread): no clocks, never reported. */
void hrace__thread_internal(void);
#endif
