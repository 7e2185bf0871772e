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
