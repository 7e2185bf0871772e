/* The hooks through which core/ reaches the floors above it (docs/design.md, "Layers"). Each is
 * a function pointer that the upper floor registers from a constructor when libhrace is loaded
 * (so every one is set before the first MPI or instrumented call); NULL means that floor is not
 * linked in (a unit test) and core does without. None is called per access:
 *
 *   hook                       registered by       called by, when
 *   hrace__stack_capture_hook  access/stack.c      runtime.c, a new access descriptor
 *   hrace__fwd_flush_hook      rma/shared.c        runtime.c, a clock published while
 *                                                  hrace__fwd_pending (a flag check otherwise)
 *   hrace__segment_label_hook  rma/window.c        race.c and access/history.c, a race report
 *   hrace__progress_hook       rma/progress.c      mpi/init.c, MPI_Init and MPI_Finalize */
#ifndef HRACE_CORE_HOOKS_H
#define HRACE_CORE_HOOKS_H
#include <stdint.h>
#include "clocks/shadow.h"

/* The calling thread's current stack with pc as its first frame, interned (core/stack.h). */
extern uint32_t (*hrace__stack_capture_hook)(uintptr_t pc);

/* Loads and stores into another process's shared-memory window segment are forwarded to it in
 * batches (src/rma/shared.h); hrace__signal_clock delivers them (acknowledged, acked != 0)
 * before a clock that may cover them is published: the delivery invariant (docs/design.md,
 * "Remote accesses"). hrace__fwd_pending is set by whoever batches (rma/shared.c), which also
 * registered the flush: a publication pays one relaxed load when nothing is batched. */
extern _Atomic int hrace__fwd_pending;
extern void (*hrace__fwd_flush_hook)(int acked);

/* What a race report says about the memory whose shadow is `cells` (the ctx of
 * hrace__race_sink, of hrace__history_report): a window segment's, for every shadow today. */
typedef struct hrace_segment_label {
  const char *window;          /* the window's name ("" or its default when unnamed) */
  uintptr_t base;              /* the segment's first byte */
  uint64_t size;
  const char *allocation;      /* the call that made the memory ("MPI_Win_allocate", ...) */
  uintptr_t alloc_pc;          /* where the application made that call (a return address; 0:
                                  not known) */
  const char *window_call;     /* the call that made the window, and where (0: not known) */
  uintptr_t window_pc;
} hrace_segment_label_t;
extern void (*hrace__segment_label_hook)(const hrace_shadow_t *cells, hrace_segment_label_t *out);

/* Start (up != 0, after MPI_Init) or stop (before MPI_Finalize) hrace's progress thread, which
 * receives its own messages between ranks (core/chan.h). */
extern void (*hrace__progress_hook)(int up);
#endif
