/* The entry points of the loop-hoisting pass (tools/hrace-pass, docs/access.md "Loop
 * hoisting"): one call before a loop stands for all the loads (or stores) of one contiguous
 * range that the loop performs, with no call and so no synchronisation among them. It does
 * exactly what the per-access callbacks would have done for those bytes, in one go: the filter,
 * on a hit the window / buffer check as one access of this thread in its current segment, and
 * the history note when the history is on. The pc is the call's return address, which the
 * pass gave the debug location of one of the loop's accesses. */
#include <stddef.h>
#include <stdint.h>

#include "access/check.h"
#include "base/compiler.h"

HRACE_EXPORT void __hrace_range_read(void *a, size_t n) {
  hrace__access_check_range((uintptr_t)a, n, HRACE_ACC_READ, HRACE_OP_LOAD, HRACE_RET_ADDR());
}
HRACE_EXPORT void __hrace_range_write(void *a, size_t n) {
  hrace__access_check_range((uintptr_t)a, n, HRACE_ACC_WRITE, HRACE_OP_STORE, HRACE_RET_ADDR());
}

/* The entries for a loop nest (the pass hoists an outer loop's accesses, docs/access.md "Loop
 * hoisting"): the `count` ranges [a + k*stride, a + k*stride + len), k = 0 .. count-1, checked as
 * `count` range calls would check them. When consecutive ranges touch or overlap (len >=
 * |stride|) their union is one contiguous range, checked as one. Otherwise the whole span is
 * tested against the filter first: a nest over memory that is neither tracked nor watched by
 * full mode or the history (almost always in window-only mode: a kernel's private arrays)
 * returns after that one test. A span that wraps the address space (impossible for a nest the
 * program ran, which touched every piece) takes the loop. */
__attribute__((always_inline)) static inline void strided(uintptr_t a, size_t len, ptrdiff_t stride,
                                                          size_t count, uint16_t flags, uint16_t op,
                                                          uintptr_t pc) {
  if (HRACE_UNLIKELY(!len || !count)) return;
  size_t step = stride < 0 ? -(size_t)stride : (size_t)stride, ext;
  if (!__builtin_mul_overflow(step, count - 1, &ext) && ext + len > ext) {
    uintptr_t lo = stride < 0 ? a - ext : a;
    if (len >= step) {
      hrace__access_check_range(lo, ext + len, flags, op, pc);
      return;
    }
    if (HRACE_LIKELY(!hrace__access_maybe_tracked(lo, ext + len)) &&
        !atomic_load_explicit(&hrace__full_active, memory_order_relaxed) &&
        !hrace__filter_history())
      return;
  }
  /* A piece of at most 16 bytes (a row's edge element) takes the callbacks' own path, which
   * the range path lacks: for window memory hrace__access_more's steady state and first-touch
   * path (through hrace__access_slow, the stencil's edge elements cost 1.7 times as many
   * instructions in libhrace: bench/README.md, "Session 18"). */
  if (len <= HRACE_FILTER_SLACK)
    for (size_t k = 0; k < count; k++)
      HRACE_ACCESS_CHECK(a + k * (size_t)stride, (unsigned)len, flags, op, pc);
  else
    for (size_t k = 0; k < count; k++)
      hrace__access_check_range(a + k * (size_t)stride, len, flags, op, pc);
}
HRACE_EXPORT void __hrace_range_read_strided(void *a, size_t len, ptrdiff_t stride, size_t count) {
  strided((uintptr_t)a, len, stride, count, HRACE_ACC_READ, HRACE_OP_LOAD, HRACE_RET_ADDR());
}
HRACE_EXPORT void __hrace_range_write_strided(void *a, size_t len, ptrdiff_t stride, size_t count) {
  strided((uintptr_t)a, len, stride, count, HRACE_ACC_WRITE, HRACE_OP_STORE, HRACE_RET_ADDR());
}

/* The masked vector loads and stores of vectorised conditional code (llvm.masked.load / store,
 * AVX targets), which clang's TSan pass leaves uninstrumented: lane i (elt bytes at a + i * elt)
 * is accessed iff bit i of lanes is set. Each run of set lanes is one range. */
__attribute__((always_inline)) static inline void masked(uintptr_t a, uint64_t lanes, size_t elt,
                                                         uint16_t flags, uint16_t op, uintptr_t pc) {
  while (lanes) {
    unsigned k = (unsigned)__builtin_ctzll(lanes);
    uint64_t run = lanes >> k;
    unsigned r = ~run ? (unsigned)__builtin_ctzll(~run) : 64 - k;
    hrace__access_check_range(a + k * elt, r * elt, flags, op, pc);
    lanes = k + r >= 64 ? 0 : lanes & ~((((uint64_t)1 << r) - 1) << k);
  }
}
HRACE_EXPORT void __hrace_masked_read(void *a, uint64_t lanes, size_t elt) {
  masked((uintptr_t)a, lanes, elt, HRACE_ACC_READ, HRACE_OP_LOAD, HRACE_RET_ADDR());
}
HRACE_EXPORT void __hrace_masked_write(void *a, uint64_t lanes, size_t elt) {
  masked((uintptr_t)a, lanes, elt, HRACE_ACC_WRITE, HRACE_OP_STORE, HRACE_RET_ADDR());
}
