/* memcpy, memmove and memset: clang 14 and gcc leave them (and clang's struct copies) as calls
 * to libc, so libhrace defines them, checks the bytes as a range read and a range write, and
 * calls libc's (dlsym(RTLD_NEXT)). Also their fortified forms (_FORTIFY_SOURCE) and the
 * __tsan_mem* entry points clang 16 emits instead.
 *
 * Every memcpy of the process comes here, libmpi's and libomp's included. Inside an MPI call
 * (the wrappers' depth, read first) the copy goes straight to libc's; elsewhere the miss is the
 * filter's: two ranges against the gate's bounds, loaded from one cache line. Only
 * threads that run instrumented code (thread.h) go further, and not while hrace itself is
 * handling an access on the thread (its own copies), nor when the MPI library's code calls
 * them from anywhere else (mpicode.h: MPICH applies puts from a signal handler): MPI's copies
 * are MPI's business.
 *
 * The real functions are looked up on first use. dlsym may itself copy memory: a call made
 * while this thread is resolving gets a byte loop instead. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#include "access/check.h"
#include "core/mpicode.h"
#include "access/thread.h"

typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);
typedef void *(*copy_chk_fn)(void *, const void *, size_t, size_t);
typedef void *(*set_chk_fn)(void *, int, size_t, size_t);

static _Atomic(copy_fn) real_memcpy, real_memmove;
static _Atomic(set_fn) real_memset;
static _Atomic(copy_chk_fn) real_memcpy_chk, real_memmove_chk;
static _Atomic(set_chk_fn) real_memset_chk;
static __thread int resolving __attribute__((tls_model("initial-exec")));

/* volatile: no compiler may turn these loops back into calls to memcpy or memset. */
static void *bytes_move(void *d, const void *s, size_t n) {
  volatile unsigned char *dp = d;
  const volatile unsigned char *sp = s;
  if (dp < sp)
    for (size_t i = 0; i < n; i++) dp[i] = sp[i];
  else
    for (size_t i = n; i-- > 0;) dp[i] = sp[i];
  return d;
}
static void *bytes_set(void *d, int c, size_t n) {
  volatile unsigned char *dp = d;
  for (size_t i = 0; i < n; i++) dp[i] = (unsigned char)c;
  return d;
}

static void *resolve(const char *name) {
  if (resolving) return NULL;
  resolving = 1;
  void *p = dlsym(RTLD_NEXT, name);
  resolving = 0;
  return p;
}

#define REAL(var, name)                                                                         \
  ({                                                                                            \
    __typeof__(atomic_load_explicit(&var, memory_order_relaxed)) f_ =                           \
        atomic_load_explicit(&var, memory_order_relaxed);                                       \
    if (HRACE_UNLIKELY(!f_)) {                                                                  \
      f_ = (__typeof__(f_))resolve(name);                                                       \
      if (f_) atomic_store_explicit(&var, f_, memory_order_relaxed);                            \
    }                                                                                           \
    f_;                                                                                         \
  })

/* Inside an MPI call (the wrappers' re-entry depth, core/thread.h) first: libmpi copies into
 * an RMA call's tracked buffer at every call, and nothing there is checked (checked()), so the
 * copy goes straight through after one thread-local load (docs/access.md). Read without
 * hrace__thread(): before the thread's state is made its initial-exec TLS reads 0, and the
 * filter decides as before. */
static inline int maybe(uintptr_t d, uintptr_t s, size_t n) {
  return !hrace__self.depth &&
         (hrace__filter_maybe_range(d, n) || (s && hrace__filter_maybe_range(s, n)));
}

HRACE_COLD static void checked(uintptr_t d, uintptr_t s, size_t n, uintptr_t pc) {
  const hrace_athread_t *t = &hrace__at;
  if (!t->app || t->busy || !n) return;
  /* Inside an MPI call first: libmpi copies into an RMA call's tracked buffer at every call. */
  if (hrace__thread()->depth) return;
  if (!hrace__filter_history() && !hrace__access_maybe_tracked(d, n) &&
      !(s && hrace__access_maybe_tracked(s, n)))
    return;                        /* between windows, in the gap this thread met last */
  if (hrace__pc_in_mpi(pc)) return;   /* MPI's copies made outside a call (a signal handler) */
  if (s) hrace__access_check_range(s, n, HRACE_ACC_READ, HRACE_OP_LOAD, pc);
  hrace__access_check_range(d, n, HRACE_ACC_WRITE, HRACE_OP_STORE, pc);
}

__attribute__((always_inline)) static inline void *do_copy(void *d, const void *s, size_t n,
                                                            uintptr_t pc, int move) {
  if (HRACE_UNLIKELY(maybe((uintptr_t)d, (uintptr_t)s, n))) checked((uintptr_t)d, (uintptr_t)s, n, pc);
  copy_fn f = move ? REAL(real_memmove, "memmove") : REAL(real_memcpy, "memcpy");
  return f ? f(d, s, n) : bytes_move(d, s, n);
}

__attribute__((always_inline)) static inline void *do_set(void *d, int c, size_t n, uintptr_t pc) {
  if (HRACE_UNLIKELY(maybe((uintptr_t)d, 0, n))) checked((uintptr_t)d, 0, n, pc);
  set_fn f = REAL(real_memset, "memset");
  return f ? f(d, c, n) : bytes_set(d, c, n);
}

/* The unit tests link a static copy of the runtime into each test program: there the
 * interposers get other names, or every test would copy memory through them. */
#ifdef HRACE_TESTLIB
#define INTERPOSE(name) hrace__test_##name
#else
#define INTERPOSE(name) name
#endif

/* Outside an MPI call: the filter and maybe the check. Not inlined into the interposers, so
 * that a copy inside an MPI call (IN_MPI) is the depth's load and a jump to libc's, with no
 * registers saved for the check it never makes. */
__attribute__((noinline)) static void *copy_out(void *d, const void *s, size_t n, uintptr_t pc,
                                                int move) {
  return do_copy(d, s, n, pc, move);
}
__attribute__((noinline)) static void *set_out(void *d, int c, size_t n, uintptr_t pc) {
  return do_set(d, c, n, pc);
}
/* The function to call at once (resolved already) when the calling thread is inside an MPI
 * call, else NULL (see maybe()). */
#define IN_MPI(var)                                                                             \
  (HRACE_UNLIKELY(hrace__self.depth) ? atomic_load_explicit(&var, memory_order_relaxed) : NULL)

HRACE_EXPORT void *INTERPOSE(memcpy)(void *d, const void *s, size_t n) {
  copy_fn f = IN_MPI(real_memcpy);
  return f ? f(d, s, n) : copy_out(d, s, n, HRACE_RET_ADDR(), 0);
}
HRACE_EXPORT void *INTERPOSE(memmove)(void *d, const void *s, size_t n) {
  copy_fn f = IN_MPI(real_memmove);
  return f ? f(d, s, n) : copy_out(d, s, n, HRACE_RET_ADDR(), 1);
}
HRACE_EXPORT void *INTERPOSE(memset)(void *d, int c, size_t n) {
  set_fn f = IN_MPI(real_memset);
  return f ? f(d, c, n) : set_out(d, c, n, HRACE_RET_ADDR());
}

HRACE_EXPORT void *__tsan_memcpy(void *d, const void *s, size_t n) { return do_copy(d, s, n, HRACE_RET_ADDR(), 0); }
HRACE_EXPORT void *__tsan_memmove(void *d, const void *s, size_t n) { return do_copy(d, s, n, HRACE_RET_ADDR(), 1); }
HRACE_EXPORT void *__tsan_memset(void *d, int c, size_t n) { return do_set(d, c, n, HRACE_RET_ADDR()); }

/* The fortified forms check the destination's size first (and abort on overflow): keep that. */
HRACE_EXPORT void *INTERPOSE(__memcpy_chk)(void *d, const void *s, size_t n, size_t dn) {
  if (HRACE_UNLIKELY(maybe((uintptr_t)d, (uintptr_t)s, n))) checked((uintptr_t)d, (uintptr_t)s, n, HRACE_RET_ADDR());
  copy_chk_fn f = REAL(real_memcpy_chk, "__memcpy_chk");
  return f ? f(d, s, n, dn) : bytes_move(d, s, n);
}
HRACE_EXPORT void *INTERPOSE(__memmove_chk)(void *d, const void *s, size_t n, size_t dn) {
  if (HRACE_UNLIKELY(maybe((uintptr_t)d, (uintptr_t)s, n))) checked((uintptr_t)d, (uintptr_t)s, n, HRACE_RET_ADDR());
  copy_chk_fn f = REAL(real_memmove_chk, "__memmove_chk");
  return f ? f(d, s, n, dn) : bytes_move(d, s, n);
}
HRACE_EXPORT void *INTERPOSE(__memset_chk)(void *d, int c, size_t n, size_t dn) {
  if (HRACE_UNLIKELY(maybe((uintptr_t)d, 0, n))) checked((uintptr_t)d, 0, n, HRACE_RET_ADDR());
  set_chk_fn f = REAL(real_memset_chk, "__memset_chk");
  return f ? f(d, c, n, dn) : bytes_set(d, c, n);
}
