/* Full mode (see full.h): the chunked shadow of all memory, the check, and the clearing of
 * memory whose owner changes. */
#include "access/full.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "access/alloc.h"
#include "access/check.h"
#include "access/filter.h"
#include "access/history.h"
#include "access/thread.h"
#include "base/log.h"
#include "base/options.h"
#include "clocks/shadow.h"
#include "core/hooks.h"
#include "core/race.h"
#include "core/thread.h"
#include "report/report.h"

#define CHUNK ((uintptr_t)1 << HRACE_FULL_CHUNK_BITS)
#define ADDR_BITS 47                      /* x86-64 user space */
#define TOP (1ul << (ADDR_BITS - HRACE_FULL_CHUNK_BITS))

typedef struct chunk {
  hrace_shadow_t sh;
  uintptr_t base;
} chunk_t;

_Atomic int hrace__full_active;
static _Atomic(chunk_t *) *top;           /* TOP entries, mapped at the start */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int mode_window = -1;              /* option mode: -1 not read yet */

/* The calling thread's stack (its bounds, and the lowest address in it that full mode saw
 * accessed since the last context switch: what a switch must forget) is in its access state
 * (thread.h: stack_lo, stack_hi, stack_min, stack_known), which the callbacks reach anyway. */

_Atomic int hrace__full_armed;

static int window_only(void) {
  if (mode_window < 0) {
    hrace__options_init();
    const char *m = hrace__opt.mode;
    mode_window = m && !strcmp(m, "window");
  }
  return mode_window;
}

const char *hrace__full_mode(void) { return window_only() ? "window" : "full"; }

static chunk_t *chunk_get(uintptr_t a, int make) {
  uintptr_t i = a >> HRACE_FULL_CHUNK_BITS;
  if (!top || i >= TOP) return NULL;
  chunk_t *c = atomic_load_explicit(&top[i], memory_order_acquire);
  if (c || !make) return c;
  pthread_mutex_lock(&mu);
  c = atomic_load_explicit(&top[i], memory_order_acquire);
  if (!c) {
    void *m = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m != MAP_FAILED) {
      c = m;
      c->base = i << HRACE_FULL_CHUNK_BITS;
      if (hrace__shadow_init_biased(&c->sh, CHUNK) != 0) {
        munmap(m, sizeof *c);
        c = NULL;
      } else {
        atomic_store_explicit(&top[i], c, memory_order_release);
      }
    }
  }
  pthread_mutex_unlock(&mu);
  return c;
}

/* Only the table's resident pages can name a chunk (mincore): it spans 64 MiB, nearly all of
 * it never touched. */
void hrace__full_mark(void) {
  pthread_mutex_lock(&mu);
  const uintptr_t per = 4096 / sizeof *top;   /* entries per page */
  unsigned char vec[64];
  for (uintptr_t i0 = 0; top && i0 < TOP; i0 += per * sizeof vec) {
    if (mincore((void *)&top[i0], per * sizeof vec * sizeof *top, vec) != 0)
      memset(vec, 1, sizeof vec);
    for (uintptr_t p = 0; p < sizeof vec; p++) {
      if (!(vec[p] & 1)) continue;
      for (uintptr_t i = i0 + p * per; i < i0 + (p + 1) * per && i < TOP; i++) {
        chunk_t *c = atomic_load_explicit(&top[i], memory_order_acquire);
        if (c) hrace__shadow_mark(&c->sh);
      }
    }
  }
  pthread_mutex_unlock(&mu);
}

/* The calling thread's stack bounds (pthread_getattr_np reads /proc/self/maps for the main
 * thread, with malloc: the caller holds `busy`). */
static void stack_learn(void) {
  hrace_athread_t *const at = &hrace__at;
  if (at->stack_known) return;
  at->stack_known = true;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void *addr;
  size_t size;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    at->stack_lo = (uintptr_t)addr;
    at->stack_hi = (uintptr_t)addr + size;
    at->stack_min = at->stack_hi;
  }
  pthread_attr_destroy(&attr);
}

void hrace__full_start(void) {
  if (atomic_load_explicit(&hrace__full_active, memory_order_acquire)) return;
  if (hrace__thread_sync_unseen_check()) return;   /* OpenMP without OMPT: nothing to judge by */
  if (window_only()) return;
  pthread_mutex_lock(&mu);
  if (!top) {
    void *m = mmap(NULL, TOP * sizeof *top, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m != MAP_FAILED) top = m;
  }
  pthread_mutex_unlock(&mu);
  if (!top) {
    hrace__warn("full mode: cannot map the shadow's table; only window memory is checked");
    return;
  }
  hrace__filter_history_on();     /* the gate lets every access through from now on */
  atomic_store_explicit(&hrace__full_active, 1, memory_order_release);
}

/* Clear [a, a+n) of one chunk. Long ranges drop whole pages of granule words instead of
 * visiting each (zero pages read as "nothing recorded"); a granule's finer block, if it had
 * one, is simply no longer referenced. */
static void clear_in(chunk_t *c, uintptr_t a, size_t n) {
  uint64_t off = a - c->base;
  if (n >= (64u << 10)) {
    _Atomic uint64_t *g = (_Atomic uint64_t *)hrace__shadow_granules(&c->sh);
    uintptr_t wlo = (uintptr_t)&g[(off + 7) / 8], whi = (uintptr_t)&g[(off + n) / 8];
    uintptr_t plo = (wlo + 4095) & ~(uintptr_t)4095, phi = whi & ~(uintptr_t)4095;
    if (phi > plo && madvise((void *)plo, phi - plo, MADV_DONTNEED) == 0) {
      uint64_t glo = (plo - (uintptr_t)g) / 8 * 8, ghi = (phi - (uintptr_t)g) / 8 * 8;
      hrace__shadow_clear(&c->sh, off, glo - off);
      hrace__shadow_clear(&c->sh, ghi, off + n - ghi);
      return;
    }
  }
  hrace__shadow_clear(&c->sh, off, n);
}

void hrace__full_clear(uintptr_t a, size_t n) {
  if (!top || !n) return;
  uintptr_t end = a + n;
  while (a < end) {
    uintptr_t cend = (a | (CHUNK - 1)) + 1, e = end < cend ? end : cend;
    chunk_t *c = chunk_get(a, 0);
    if (c) clear_in(c, a, e - a);
    a = e;
  }
}

/* Below the innermost instrumented frame still live (its entry's stack pointer, recorded by
 * __tsan_func_entry) the stack is dead to the application: libomp's frames, then the frames of
 * whatever task ran or will run here. With no instrumented frame live, all of it is. Clearing
 * too much only forgets accesses; too little would leave a finished task's locals to race with
 * the next task's. */
void hrace__full_switch(void) {
  hrace_athread_t *at = &hrace__at;
  if (!atomic_load_explicit(&hrace__full_active, memory_order_relaxed) || !at->stack_known ||
      !at->stack_lo)
    return;
  uintptr_t lim = at->depth ? at->sps[(at->depth - 1) % HRACE_SSTACK] : at->stack_hi;
  if (lim < at->stack_lo || lim > at->stack_hi) return;
  if (at->stack_min < lim) hrace__full_clear(at->stack_min, lim - at->stack_min);
  at->stack_min = lim;
}

/* Does [a, a+n) meet window memory (checked by the window's own shadow)? Inside a part of
 * the window this thread found last it does, without the search: a hoisted loop's range call
 * has just been checked in that window's shadow (hrace__access_check_range, which calls this
 * after hrace__access_slow cached the window), and the search cost a hybrid kernel's full
 * mode about 100 instructions per range call (bench/README.md, "Session 17"). */
static int in_window(uintptr_t a, size_t n) {
  if (hrace__access_in_window(a, n)) return 1;
  if (!hrace__filter_tracked(a, n)) return 0;
  hrace_range_t r[8];
  unsigned k = hrace__filter_find(a, n, r, 8);
  for (unsigned i = 0; i < k && i < 8; i++)
    if (r[i].kind == HRACE_TRACK_WINDOW) return 1;
  return 0;
}

static void sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  chunk_t *c = ctx;
  uintptr_t addr = c->base + off;
  hrace_alloc_info_t blk;
  if (hrace__alloc_find(addr, &blk))
    hrace__race_memory(now, prev, addr, len, blk.label, blk.base, blk.size);
  else
    hrace__race_memory(now, prev, addr, len, NULL, 0, 0);
}

/* Check [a, end) in the chunks it spans. */
static void shadow_run(hrace_athread_t *at, uintptr_t a, uintptr_t end, hrace_aid_t id) {
  const hrace_vc_t *view = hrace__thread_view();
  while (a < end) {
    uintptr_t cend = (a | (CHUNK - 1)) + 1, e = end < cend ? end : cend;
    chunk_t *c = chunk_get(a, 1);
    if (!c) return;
    hrace__shadow_access(&c->sh, a - c->base, e - a, id, view, sink, c);
    a = e;
  }
}

void hrace__full_access(uintptr_t a, size_t n, uint16_t flags, uint16_t op, uintptr_t pc) {
  hrace_athread_t *at = &hrace__at;
  if (!at->app || at->busy || !n) return;
  hrace_thread_t *rt = at->rt;
  if (!rt || rt->tid < 0 || rt->in_reduction || rt->in_runtime_copy ||
      (rt->in_barrier && rt->cur == &rt->base))
    return;
  /* Repeats of this thread's segment over bytes it already recorded need no filter here: the
   * shadow recognises them itself, without its lock (same-epoch elision and the segment's
   * ranges, clocks/shadow.c). */
  if (in_window(a, n)) return;
  at->busy = true;
  if (__builtin_expect(!at->stack_known, 0)) stack_learn();
  if (a >= at->stack_lo && a < at->stack_hi && a < at->stack_min) at->stack_min = a;
  uint32_t cls = (flags & HRACE_ACC_ATOMIC) ? 0xA7000000u | (uint32_t)n : 0;
  hrace_aid_t id = hrace__athread_aid(at, pc, flags, op, cls);
  /* The commonest, a scalar or a vector of two in one chunk that meets no race there: the
   * shadow's first-touch path (clocks/shadow.h), before the general check. */
  if ((n == 8 || n == 16) && !(a & 7) && ((a ^ (a + n - 1)) >> HRACE_FULL_CHUNK_BITS) == 0) {
    uintptr_t i = a >> HRACE_FULL_CHUNK_BITS;
    chunk_t *c = i < TOP ? atomic_load_explicit(&top[i], memory_order_acquire) : NULL;
    if (c && hrace__shadow_quick(&c->sh, a - c->base, n, id, hrace__thread_view())) {
      at->busy = false;
      return;
    }
  }
  shadow_run(at, a, a + n, id);
  at->busy = false;
}

/* The commonest access of code without loop hoisting, taken in one pass as TSan's runtime
 * takes it inline: an aligned scalar or vector of two (8 or 16 bytes) in one chunk, off the
 * tracked ranges (the caller tested the filter's bounds: not window memory), by a thread in an
 * ordinary state whose descriptor for this code address and segment is in its cache
 * (thread.h), where the shadow's memo of first-touch answers (clocks/shadow.h) already knows
 * what the granules' state becomes: then one plain store in a chunk biased to this thread
 * (clocks/shadow.c, "Biased chunks"), else one under the chunk's lock, or none. Second
 * chance, the shadow's first-touch path itself (hrace__shadow_quick: it meets no race there).
 * Returns 0, having changed nothing, for everything else, which hrace__full_access decides as
 * before. No flag `busy`: nothing here reaches the memcpy interposer. Against going through
 * hrace__full_access this skips the window test, a second thread state lookup, the flags'
 * class and the shadow's own checks: callgrind, bench/omp/full.c `loop 400000 10` without
 * hoisting, 2.00 G instructions -> 1.53 G (about 310 -> 235 per callback; bench/README.md). */
__attribute__((always_inline)) static inline int full_fast(hrace_athread_t *at, uintptr_t a,
                                                            unsigned n, uint16_t flags,
                            uintptr_t pc) {
  if ((n != 8 && n != 16) || (a & 7) || ((a ^ (a + n - 1)) >> HRACE_FULL_CHUNK_BITS)) return 0;
  const uintptr_t i = a >> HRACE_FULL_CHUNK_BITS;
  chunk_t *c = i < TOP ? atomic_load_explicit(&top[i], memory_order_acquire) : NULL;
  if (!c) return 0;
  const uint64_t g = (a - c->base) / 8;
  const _Atomic uint64_t *gw = hrace__shadow_granules(&c->sh) + g;
  /* The granule is about to be read and, mostly, written: ask for the line now, so that its
   * miss overlaps the checks below (4 % of the unhoisted `loop`'s CPU time). */
  __builtin_prefetch((const void *)gw, 1);
  /* An ordinary state: registered, not busy, stack known, the application's (one word,
   * thread.h), and neither in a barrier, a reduction nor a runtime copy (one word, core/
   * thread.h). */
  if (at->state != HRACE_ATHREAD_ORDINARY) return 0;
  const hrace_thread_t *rt = at->rt;
  if (rt->unusual) return 0;
  const hrace_ctx_t *cx = rt->cur;
  const uint64_t seg = (uint64_t)cx->idx << 32 | cx->l.c[cx->idx];   /* hrace__athread_segment */
  const unsigned k = hrace__athread_aid_slot(at, pc);
  if (at->aids[k].pc != pc || at->aids[k].seg != seg || at->aids[k].flags != flags) return 0;
  /* The entry's memo answer (thread.h), copied from the shadow's memo by
   * full_untracked_slow: it holds for this descriptor and context as the memo's own does, and
   * a granule word never equals HRACE_AID_NO_ANSWER. */
  const uint64_t v = atomic_load_explicit(&gw[0], memory_order_acquire);
  const uint64_t next = at->aids[k].mnext;
  if (!(at->aids[k].mv == v &&
        (n == 8 || atomic_load_explicit(&gw[1], memory_order_acquire) == v) &&
        (next == v || hrace__shadow_replace_own(&c->sh, g, n / 8, v, next) > 0)))
    return 0;
  /* The stack's lowest address seen (hrace__full_switch); stack_min lies in [lo, hi]. */
  if (a - at->stack_lo < at->stack_min - at->stack_lo) at->stack_min = a;
  return 1;
}

/* What full_fast leaves, and the history after it: full_fast's case with the chunk's lock
 * (hrace__shadow_replace) or the first-touch path (hrace__shadow_quick), else
 * hrace__full_access. full_fast, when it did nothing, changed nothing. */
__attribute__((noinline)) static void full_untracked_slow(uintptr_t a, unsigned n,
                                                          uint16_t flags, uint16_t op,
                                                          uintptr_t pc) {
  hrace_athread_t *at = &hrace__at;
  int done = 0;
  const uintptr_t i = a >> HRACE_FULL_CHUNK_BITS;
  chunk_t *c = i < TOP && top ? atomic_load_explicit(&top[i], memory_order_acquire) : NULL;
  if ((n == 8 || n == 16) && !(a & 7) && !((a ^ (a + n - 1)) >> HRACE_FULL_CHUNK_BITS) && c &&
      at->state == HRACE_ATHREAD_ORDINARY && !at->rt->unusual) {
    const hrace_ctx_t *cx = at->rt->cur;
    const uint64_t seg = hrace__athread_segment(at);
    const unsigned k = hrace__athread_aid_slot(at, pc);
    if (at->aids[k].pc == pc && at->aids[k].seg == seg && at->aids[k].flags == flags) {
      const hrace_aid_t id = at->aids[k].aid;
      const uint64_t g = (a - c->base) / 8;
      const _Atomic uint64_t *gw = hrace__shadow_granules(&c->sh) + g;
      const hrace_shadow_memo_t *m = &hrace__shadow_memo[id % HRACE_SHADOW_MEMO][0];
      const uint64_t v = atomic_load_explicit(&gw[0], memory_order_acquire);
      done = (m->id == id && m->l == &cx->l && m->v == v &&
              (n == 8 || atomic_load_explicit(&gw[1], memory_order_acquire) == v) &&
              (m->next == v || hrace__shadow_replace_fast(&c->sh, g, n / 8, v, m->next))) ||
             hrace__shadow_quick(&c->sh, a - c->base, n, id, &cx->g);
      if (done && a - at->stack_lo < at->stack_min - at->stack_lo) at->stack_min = a;
      /* The memo's answer for the word this access met, if it has one now, into the entry,
       * for full_fast's next access from here. */
      for (unsigned j = 0; done && j < 2; j++)
        if (m[j].id == id && m[j].l == &cx->l && m[j].v == v) {
          at->aids[k].mv = v;
          at->aids[k].mnext = m[j].next;
          break;
        }
    }
  }
  if (!done) hrace__full_access(a, n, flags, op, pc);
  hrace__history_access(a, n, flags, op, pc);
}

/* The history's check after full_fast (a load or a store). */
__attribute__((noinline)) static void full_history(uintptr_t a, unsigned n, uint16_t flags,
                                                   uintptr_t pc) {
  hrace__history_access(a, n, flags, (flags & HRACE_ACC_WRITE) ? HRACE_OP_STORE : HRACE_OP_LOAD,
                        pc);
}

/* The body of hrace__full_untracked and of its instantiations for 8 and 16 bytes below. Each
 * is out of line, so that hrace__access_more stays a function of tail calls that saves no
 * register on its window paths, and a leaf with tail calls only on full_fast's path (session
 * 14's version called the lock's and the first-touch path's functions from full_fast and
 * pushed six registers on every access). */
__attribute__((always_inline, optimize("omit-frame-pointer"))) static inline void
untracked(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (__builtin_expect(flags & HRACE_ACC_ATOMIC, 0)) {
    full_untracked_slow(a, n, flags, op, pc);
    return;
  }
  /* Not atomic: a load or a store, as the callbacks say (tsan.c), and op need not be kept. */
  if (__builtin_expect(!full_fast(&hrace__at, a, n, flags, pc), 0)) {
    full_untracked_slow(a, n, flags,
                        (flags & HRACE_ACC_WRITE) ? HRACE_OP_STORE : HRACE_OP_LOAD, pc);
    return;
  }
  /* hrace__history_access's first tests inline (full mode in a program without MPI: no
   * table), the rest out of line. */
  if (!hrace__filter_history() || (!hrace__at.hist && !hrace__proc.mpi_ready)) return;
  full_history(a, n, flags, pc);
}
__attribute__((noinline, optimize("omit-frame-pointer"))) void
hrace__full_untracked(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  untracked(a, n, flags, op, pc);
}
/* n is known (the unreachable branch says so) and stays an argument (noclone): the callers'
 * argument registers pass through unchanged (docs/access.md, *Session 18*). */
__attribute__((noinline, noclone, optimize("omit-frame-pointer"))) void
hrace__full_untracked8(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (n != 8) __builtin_unreachable();
  untracked(a, n, flags, op, pc);
}
__attribute__((noinline, noclone, optimize("omit-frame-pointer"))) void
hrace__full_untracked16(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (n != 16) __builtin_unreachable();
  untracked(a, n, flags, op, pc);
}

/* A thread that starts running instrumented code may sit on the stack of one that ended (the
 * C library caches stacks): what the old thread left there says nothing about the new one. */
void hrace__full_thread_begins(void) {
  if (!atomic_load_explicit(&hrace__full_active, memory_order_acquire)) return;
  hrace_athread_t *at = &hrace__at;
  bool busy = at->busy;
  at->busy = true;
  stack_learn();
  if (at->stack_lo) hrace__full_clear(at->stack_lo, at->stack_hi - at->stack_lo);
  at->stack_min = (uintptr_t)__builtin_frame_address(0);
  at->busy = busy;
}

/* The option is read here, not on a thread's first instrumented code: that can run while the
 * dynamic linker resolves an IFUNC (a target_clones resolver is instrumented code), before the
 * C library has set up the environment, and would fix every option at its default. */
__attribute__((constructor)) static void full_hooks(void) {
  hrace__report_set_mode(hrace__full_mode);
  if (!window_only()) atomic_store(&hrace__full_armed, 1);
  hrace__threads_coming_hook = hrace__full_start;
  hrace__ctx_switch_hook = hrace__full_switch;
  hrace__mem_fresh_hook = hrace__full_clear;
}
