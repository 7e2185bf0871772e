/* What every access callback does: the filter, and the history when it is on. Shared by the
 * ThreadSanitizer-ABI entry points (tsan.c) and the memcpy / memmove / memset interposers
 * (intercept.c). */
#ifndef HRACE_ACCESS_CHECK_H
#define HRACE_ACCESS_CHECK_H
#include <stddef.h>
#include <stdint.h>

#include "access/filter.h"
#include "access/full.h"
#include "core/mpicode.h"
#include "access/history.h"
#include "access/thread.h"

/* The access is near tracked memory: find the ranges it meets and check it there (windows:
 * the shadow; in-flight buffers and peers' segments: src/rma). Out of line and cold, so that
 * the callbacks stay leaves of a few instructions. `width` is the access's own size (atomics:
 * their class), [a, a+len) the bytes. */
void hrace__access_slow(uintptr_t a, size_t len, unsigned width, uint16_t flags, uint16_t op,
                        uintptr_t pc);

/* The rest of an access that the gate let through: near tracked memory, or history on. Out
 * of line, so that the callbacks' miss path is a leaf that saves no register. */
void hrace__access_more(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc);
/* The same for n == 8 and n == 16, the commonest sizes, with the size a constant inside (n
 * stays an argument, so that the argument registers pass through to the paths below). */
void hrace__access_more8(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc);
void hrace__access_more16(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc);

/* An access of a constant n <= 16 bytes: two loads from one cache line, a compare, and a
 * return. A macro, so that the callback is that and a tail call: as a call of its own the miss
 * cost 2.7 ns instead of 0.6 (bench/access); with the history check inlined the callbacks
 * saved three registers on every access. */
#define HRACE_ACCESS_CHECK(a, n, flags, op, pc)                                                  \
  do {                                                                                           \
    uintptr_t a_ = (uintptr_t)(a);                                                               \
    if (HRACE_UNLIKELY(hrace__filter_maybe(a_))) {                                               \
      if ((n) == 8)                                                                              \
        hrace__access_more8(a_, n, flags, op, pc);                                               \
      else if ((n) == 16)                                                                        \
        hrace__access_more16(a_, n, flags, op, pc);                                              \
      else                                                                                       \
        hrace__access_more(a_, n, flags, op, pc);                                                \
    }                                                                                            \
  } while (0)

/* Might [a, a+n) meet a tracked range: inside the ranges' bounds and not in the gap between
 * ranges this thread met last (thread.h)? */
static inline bool hrace__access_maybe_tracked(uintptr_t a, size_t n) {
  if (HRACE_LIKELY(!hrace__filter_tracked(a, n) || !hrace__filter_page_range(a, n))) return false;
  const hrace_athread_t *t = &hrace__at;
  return !(t->gseq == atomic_load_explicit(&hrace__filter_seq, memory_order_acquire) &&
           a >= t->glo && a + n <= t->ghi);
}

/* Does [a, a+n) lie in one of the parts of a window that this thread's last look-up found
 * alone there (thread.h's range cache, as hrace__access_slow left it)? Such bytes are this
 * process's window memory: every access to them is checked and recorded in the window's
 * shadow, which also records each RMA operation whose origin buffer lies there when it is
 * issued (src/rma/buffers.c, into_windows), and so finds a race between an access made before
 * the issue and the operation by itself, as one race with the window's offsets. The history
 * of plain memory (history.h) would only find the same pairs again: window memory stays out of
 * it. A hybrid stencil's threads recorded every 64 bytes of every row there, per segment: half
 * of libhrace's instructions (bench/README.md, "Session 12: window memory"). */
static inline bool hrace__access_in_window(uintptr_t a, size_t n) {
  const hrace_athread_t *t = &hrace__at;
  return t->rkind == HRACE_TRACK_WINDOW &&
         t->rseq == atomic_load_explicit(&hrace__filter_seq, memory_order_acquire) &&
         ((a >= t->rlo && a + n <= t->rhi) || (a >= t->rlo2 && a + n <= t->rhi2));
}

/* An access of any length (range callbacks, memcpy and friends). */
__attribute__((always_inline)) static inline void hrace__access_check_range(uintptr_t a, size_t n, uint16_t flags, uint16_t op,
                                             uintptr_t pc) {
  if (HRACE_UNLIKELY(!n)) return;
  if (HRACE_UNLIKELY(hrace__access_maybe_tracked(a, n))) hrace__access_slow(a, n, 0, flags, op, pc);
  /* Full mode: only the application's code (libomp's and libc's copies of their own memory
   * reach the memcpy interposer too). */
  if (HRACE_UNLIKELY(atomic_load_explicit(&hrace__full_active, memory_order_relaxed)) &&
      hrace__pc_instrumented(pc))
    hrace__full_access(a, n, flags, op, pc);
  if (HRACE_UNLIKELY(hrace__filter_history()) && !hrace__access_in_window(a, n))
    hrace__history_note(a, n, flags, op, pc);
}
#endif
