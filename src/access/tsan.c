/* hrace's runtime for the ThreadSanitizer instrumentation ABI (clang / gcc -fsanitize=thread
 * at compile time only). Every load and store of instrumented code lands here; the filter
 * (filter.h) sends almost all of them back after a compare, the rest go to the window shadow.
 *
 * Entry points present: init, function entry / exit, plain and unaligned reads and writes of
 * 1-16 bytes, range reads and writes, the C11 atomic family (performed for real, then checked
 * as atomic accesses), fences, and the vptr hooks C++ emits. The full memcpy / memset
 * interposition and the origin-buffer tracking arrive with issue 6. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "access/filter.h"
#include "clocks/shadow.h"
#include "core/race.h"
#include "core/runtime.h"
#include "rma/buffers.h"
#include "rma/window.h"

/* The slow path: the address is near tracked memory. Kept out of line so the per-access
 * callbacks stay leaves of a few instructions. */
HRACE_COLD static void slow(uintptr_t a, size_t len, uint16_t flags, uint16_t op, uintptr_t pc) {
  hrace_thread_t *t = hrace__thread();
  if (t->depth || !hrace__proc.mpi_ready) return;   /* hrace's own accesses, or no MPI yet */
  hrace_ranges_t *rs = atomic_load_explicit(&hrace__filter_ranges, memory_order_acquire);
  if (!rs) return;
  for (unsigned i = 0; i < rs->n; i++) {
    const hrace_range_t *r = &rs->r[i];
    if (a >= r->hi || a + len <= r->lo) continue;
    uintptr_t lo = a > r->lo ? a : r->lo, hi = a + len < r->hi ? a + len : r->hi;
    /* C11 atomics of one width are atomic with each other, not with MPI accumulates. */
    uint32_t cls = (flags & HRACE_ACC_ATOMIC) ? 0xA7000000u | (uint32_t)len : 0;
    if (r->kind == HRACE_TRACK_BUFFER) {
      hrace__buffer_access(r->owner, lo, hi - lo, flags, op, cls, pc);
      continue;
    }
    hrace_win_t *w = r->owner;
    hrace_aid_t id = hrace__local_access(pc, flags, op, cls);
    hrace__shadow_access(&w->cells, lo - r->lo, hi - lo, id, hrace__thread_view(), hrace__race_sink, w);
  }
}

static inline void check(uintptr_t a, size_t len, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (HRACE_LIKELY(!hrace__filter_maybe(a))) return;
  slow(a, len, flags, op, pc);
}

#define RD (HRACE_ACC_READ)
#define WR (HRACE_ACC_WRITE)

HRACE_EXPORT void __tsan_init(void) {}
HRACE_EXPORT void __tsan_func_entry(void *pc) {}
HRACE_EXPORT void __tsan_func_exit(void) {}

#define PLAIN(n)                                                                           \
  HRACE_EXPORT void __tsan_read##n(void *a) { check((uintptr_t)a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); }  \
  HRACE_EXPORT void __tsan_write##n(void *a) { check((uintptr_t)a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); } \
  HRACE_EXPORT void __tsan_unaligned_read##n(void *a) { check((uintptr_t)a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); } \
  HRACE_EXPORT void __tsan_unaligned_write##n(void *a) { check((uintptr_t)a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); } \
  HRACE_EXPORT void __tsan_read##n##_pc(void *a, void *pc) { check((uintptr_t)a, n, RD, HRACE_OP_LOAD, (uintptr_t)pc); } \
  HRACE_EXPORT void __tsan_write##n##_pc(void *a, void *pc) { check((uintptr_t)a, n, WR, HRACE_OP_STORE, (uintptr_t)pc); }
PLAIN(1) PLAIN(2) PLAIN(4) PLAIN(8) PLAIN(16)

static inline void check_range(uintptr_t a, size_t len, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (HRACE_LIKELY(!hrace__filter_overlaps(a, len))) return;
  slow(a, len, flags, op, pc);
}
HRACE_EXPORT void __tsan_read_range(void *a, unsigned long len) { check_range((uintptr_t)a, len, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); }
HRACE_EXPORT void __tsan_write_range(void *a, unsigned long len) { check_range((uintptr_t)a, len, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); }
HRACE_EXPORT void __tsan_vptr_update(void **p, void *v) { check((uintptr_t)p, sizeof *p, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); }
HRACE_EXPORT void __tsan_vptr_read(void **p) { check((uintptr_t)p, sizeof *p, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); }

/* Atomics: the instrumentation replaces the atomic instruction with the call, so the call must
 * perform it. Memory orders are honoured by always using the strongest (seq_cst): correct for
 * every program, slightly slower than needed for relaxed ones. */
typedef __int128 a128;
#define AT_RD (HRACE_ACC_READ | HRACE_ACC_ATOMIC)
#define AT_WR (HRACE_ACC_WRITE | HRACE_ACC_ATOMIC)
#define AT_RMW (HRACE_ACC_READ | HRACE_ACC_WRITE | HRACE_ACC_ATOMIC)
#define ATOMICS(bits, T)                                                                         \
  HRACE_EXPORT T __tsan_atomic##bits##_load(const volatile T *a, int mo) {                       \
    check((uintptr_t)a, sizeof(T), AT_RD, HRACE_OP_ATOMIC_LOAD, HRACE_RET_ADDR());               \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                              \
  HRACE_EXPORT void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) {                    \
    check((uintptr_t)a, sizeof(T), AT_WR, HRACE_OP_ATOMIC_STORE, HRACE_RET_ADDR());              \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                    \
  }                                                                                              \
  RMW(bits, T, exchange, __atomic_exchange_n)                                                    \
  RMW(bits, T, fetch_add, __atomic_fetch_add) RMW(bits, T, fetch_sub, __atomic_fetch_sub)        \
  RMW(bits, T, fetch_and, __atomic_fetch_and) RMW(bits, T, fetch_or, __atomic_fetch_or)          \
  RMW(bits, T, fetch_xor, __atomic_fetch_xor) RMW(bits, T, fetch_nand, __atomic_fetch_nand)      \
  HRACE_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) { \
    check((uintptr_t)a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());               \
    return __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
  }                                                                                              \
  HRACE_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) { \
    check((uintptr_t)a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());               \
    return __atomic_compare_exchange_n(a, c, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
  }                                                                                              \
  HRACE_EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) { \
    check((uintptr_t)a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());               \
    __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                \
    return c;                                                                                    \
  }
#define RMW(bits, T, name, builtin)                                                              \
  HRACE_EXPORT T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo) {                      \
    check((uintptr_t)a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());               \
    return builtin(a, v, __ATOMIC_SEQ_CST);                                                      \
  }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
#undef RMW
/* 128-bit: loads and stores only (gcc emits these); no lock-free RMW family on x86-64. */
HRACE_EXPORT a128 __tsan_atomic128_load(const volatile a128 *a, int mo) {
  check((uintptr_t)a, 16, AT_RD, HRACE_OP_ATOMIC_LOAD, HRACE_RET_ADDR());
  return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}
HRACE_EXPORT void __tsan_atomic128_store(volatile a128 *a, a128 v, int mo) {
  check((uintptr_t)a, 16, AT_WR, HRACE_OP_ATOMIC_STORE, HRACE_RET_ADDR());
  __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
}
HRACE_EXPORT void __tsan_atomic_thread_fence(int mo) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
HRACE_EXPORT void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
