/* Process and thread state of the hrace runtime, and the operations every layer shares:
 * the process clock (signal / wait), per-thread access descriptors, op labels.
 *
 * Clock model today: one exporter per MPI process (entry = world rank). The hybrid
 * per-thread clocks of DESIGN "Clocks: hybrid, precise, compact" replace this in issue 7;
 * every caller goes through hrace__signal / hrace__wait / hrace__thread_view so that the
 * change stays inside this module. */
#ifndef HRACE_CORE_RUNTIME_H
#define HRACE_CORE_RUNTIME_H
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "clocks/access.h"
#include "clocks/vc.h"

#define HRACE_EXPORT __attribute__((visibility("default")))
#define HRACE_LIKELY(x) __builtin_expect(!!(x), 1)
#define HRACE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HRACE_COLD __attribute__((noinline, cold))
#define HRACE_RET_ADDR() ((uintptr_t)__builtin_return_address(0))

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
  MPI_Comm ctl;              /* hrace's own communicator: records, lock tokens, acks */
  MPI_Comm world_shadow;     /* clock exchanges of MPI_COMM_WORLD's collectives */
  hrace_vc_t vc;             /* the process clock (entry per exporter) */
} hrace_proc_t;

extern hrace_proc_t hrace__proc;

#define HRACE_CACHE 64
typedef struct hrace_thread {
  int tid;                   /* thread number in this process (0: the initial thread) */
  int depth;                 /* re-entry depth of hrace's wrappers on this thread */
  int reply_tag;             /* tag of replies to this thread's requests on hrace__proc.ctl */
  /* Descriptor cache for this thread's current segment, keyed by code address and kind. */
  struct { uintptr_t pc; hrace_clk_t epoch; uint16_t flags; hrace_aid_t id; } cache[HRACE_CACHE];
} hrace_thread_t;

hrace_thread_t *hrace__thread(void);

/* The exporter / epoch of the calling thread, and the clock its accesses are checked with. */
static inline uint32_t hrace__thread_exporter(void) { return (uint32_t)hrace__proc.rank; }
static inline hrace_clk_t hrace__thread_epoch(void) { return hrace__proc.vc.c[hrace__proc.rank]; }
static inline const hrace_vc_t *hrace__thread_view(void) { return &hrace__proc.vc; }

/* Signal: the caller is about to publish its clock (send it, or deposit it at a lock); after
 * the publication, hrace__signal_done ticks the caller's entry so that later accesses are not
 * covered. Wait: join a received clock. */
static inline const hrace_vc_t *hrace__signal_clock(void) { return &hrace__proc.vc; }
void hrace__signal_done(const char *why);
void hrace__wait(const hrace_clk_t *c, uint32_t n, const char *why);

/* The descriptor of the calling thread's access of kind (flags, op) at code address pc in its
 * current segment: cached, created on first use. */
hrace_aid_t hrace__local_access(uintptr_t pc, uint16_t flags, uint16_t op, uint32_t atomic_class);

/* Lazy runtime init (options, logging); safe to call from any entry point, any time. */
void hrace__runtime_init(void);
#endif
