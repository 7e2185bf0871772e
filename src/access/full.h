/* Full mode (option mode=full, the default): every load and store of instrumented code is
 * checked against the other threads and tasks of the process, on any memory (globals, heap,
 * stacks shared into a parallel region), not only on window memory (issue 16; docs/access.md,
 * "Full mode: thread races on all memory").
 *
 * The shadow is the window shadow's (clocks/shadow.h: per byte the last write's descriptor and
 * the reads since, checked with the thread's clock), over the whole address space in lazily
 * created chunks of 2^HRACE_FULL_CHUNK_BITS bytes: a top-level table indexed by addr >> 24
 * (64 MiB of address space, MAP_NORESERVE, resident only where used) points at each chunk's
 * hrace_shadow_t. Window memory is left to the window's own shadow (RMA needs it).
 *
 * Full mode starts when a second thread is about to run (an OpenMP parallel region begins, the
 * application calls pthread_create, or a second thread runs instrumented code): before that
 * every access of the one thread is ordered before everything a later thread does (the fork),
 * so nothing recorded then could race. Once on, the gate (filter.h) sends every access to
 * the slow path, which calls hrace__full_check.
 *
 * Memory whose owner changes without a synchronisation hrace sees is forgotten (its shadow
 * cleared): blocks handed out by malloc & co. (access/alloc.c), OpenMP task descriptors
 * (libomp's own allocator), a new thread's stack, and the dead part of a thread's stack when
 * the thread switches from one task's clock to another's (tasks on one thread reuse the stack
 * below the switch point with no order between them). Accesses made by instrumented code that
 * libomp calls inside a barrier (the tree reduction's combiner) or inside a reduction scope are
 * not checked: they combine private copies under the runtime's own synchronisation, which
 * OMPT does not show. */
#ifndef HRACE_ACCESS_FULL_H
#define HRACE_ACCESS_FULL_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HRACE_FULL_CHUNK_BITS 24

/* Non-zero while full mode checks accesses (mode=full and a second thread exists). */
extern _Atomic int hrace__full_active;

/* Non-zero once instrumented code ran with mode=full: heap blocks get their call site
 * remembered from then on (access/alloc.c), so that a block allocated before the threads
 * start is named in a report too. */
extern _Atomic int hrace__full_armed;

/* One access of the calling thread (any length; cold: the gate already let it through). */
void hrace__full_access(uintptr_t a, size_t n, uint16_t flags, uint16_t op, uintptr_t pc);

static inline void hrace__full_check(uintptr_t a, size_t n, uint16_t flags, uint16_t op,
                                     uintptr_t pc) {
  if (__builtin_expect(atomic_load_explicit(&hrace__full_active, memory_order_relaxed), 0))
    hrace__full_access(a, n, flags, op, pc);
}

/* An access of the calling thread outside the tracked ranges' bounds (filter.h), while full
 * mode is on: checked here, then recorded in the history (history.h). The callbacks' path. */
void hrace__full_untracked(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc);
/* The same for the commonest sizes, n == 8 and n == 16 (tsan.c's hrace__access_more8 / 16),
 * with the size a constant inside: its tests fold. n stays an argument, so that the callers'
 * argument registers pass through unchanged. */
void hrace__full_untracked8(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc);
void hrace__full_untracked16(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc);

/* Start full mode now (idempotent): a second thread is about to run. */
void hrace__full_start(void);
/* The descriptor sweep (clocks/access.h): mark the ids every chunk's shadow holds. */
void hrace__full_mark(void);
/* Forget what the shadow recorded over [a, a+n): the memory has a new owner. */
void hrace__full_clear(uintptr_t a, size_t n);
/* The calling thread's clock context is about to change (OpenMP task switch): forget its dead
 * stack, below the caller's frame. */
void hrace__full_switch(void);
/* The calling thread runs instrumented code for the first time (access/thread.c). */
void hrace__full_thread_begins(void);
/* Which mode runs, for the report's summary: "full" or "window". */
const char *hrace__full_mode(void);
#endif
