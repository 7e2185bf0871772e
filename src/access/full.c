/* Full mode (see full.h): the chunked shadow of all memory, the check, and the clearing of
 * memory whose owner changes. */
#include "access/full.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "access/alloc.h"
#include "access/filter.h"
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

/* The calling thread's stack: its bounds, and the lowest address in it that full mode saw
 * accessed since the last context switch (what a switch must forget). */
static __thread struct { uintptr_t lo, hi, min; int known; } stk
    __attribute__((tls_model("initial-exec")));

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
      if (hrace__shadow_init(&c->sh, CHUNK) != 0) {
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

/* The calling thread's stack bounds (pthread_getattr_np reads /proc/self/maps for the main
 * thread, with malloc: the caller holds `busy`). */
static void stack_learn(void) {
  if (stk.known) return;
  stk.known = 1;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void *addr;
  size_t size;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    stk.lo = (uintptr_t)addr;
    stk.hi = (uintptr_t)addr + size;
    stk.min = stk.hi;
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
  if (!atomic_load_explicit(&hrace__full_active, memory_order_relaxed) || !stk.known || !stk.lo)
    return;
  const hrace_athread_t *at = &hrace__at;
  uintptr_t lim = at->depth ? at->sps[(at->depth - 1) % HRACE_SSTACK] : stk.hi;
  if (lim < stk.lo || lim > stk.hi) return;
  if (stk.min < lim) hrace__full_clear(stk.min, lim - stk.min);
  stk.min = lim;
}

/* What this thread already recorded in its current segment, per 64-byte line (direct-mapped,
 * 4096 lines, per thread): a stencil reads each location from three code addresses per segment, and each
 * would rewrite the shadow's cell with its own descriptor (a CAS per granule: bench/README.md,
 * "Full mode"). Another plain access of the same thread and segment to bytes already recorded
 * gets the same verdicts from every other thread's later access (same clock), so it is not
 * applied again: a read is covered by a read or a write of those bytes, a write by a write.
 * Reports then name the first code address of the segment, a true racing pair all the same.
 * Atomic accesses always go to the shadow (an atomic recorded first must not cover a later
 * plain access, which races where the atomic does not). */
#define SEEN_BITS 12
typedef struct seen { uint64_t tag, seg, wm, rm; } seen_t;
static __thread seen_t *seen_tab __attribute__((tls_model("initial-exec")));
static pthread_key_t seen_key;
static pthread_once_t seen_once = PTHREAD_ONCE_INIT;
static void seen_free(void *t) {
  seen_tab = NULL;   /* this thread may still run instrumented code in later destructors */
  munmap(t, sizeof(seen_t) << SEEN_BITS);
}
static void seen_key_make(void) { pthread_key_create(&seen_key, seen_free); }
/* The calling thread's table (128 KiB of address space, touched where used), or NULL. */
static seen_t *seen_get(void) {
  if (seen_tab) return seen_tab;
  pthread_once(&seen_once, seen_key_make);
  void *m = mmap(NULL, sizeof(seen_t) << SEEN_BITS, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return NULL;
  pthread_setspecific(seen_key, m);
  return seen_tab = m;
}

static uint64_t line_mask(uint64_t line, uintptr_t lo, uintptr_t hi) {
  uintptr_t l0 = (uintptr_t)line << 6, l1 = l0 + 64;
  if (lo < l0) lo = l0;
  if (hi > l1) hi = l1;
  unsigned k = (unsigned)(hi - lo);
  return (k >= 64 ? ~0ull : (1ull << k) - 1) << (lo - l0);
}
static int seen_covers(uintptr_t a, uintptr_t end, int writes, uint64_t seg) {
  if (!seen_tab) return 0;
  for (uint64_t line = a >> 6; (line << 6) < end; line++) {
    const seen_t *e = &seen_tab[line & ((1u << SEEN_BITS) - 1)];
    if (e->tag != line + 1 || e->seg != seg) return 0;
    uint64_t m = line_mask(line, a, end);
    if (((writes ? e->wm : e->wm | e->rm) & m) != m) return 0;
  }
  return 1;
}
static void seen_mark(uintptr_t a, uintptr_t end, int writes, uint64_t seg) {
  if (!seen_get()) return;
  for (uint64_t line = a >> 6; (line << 6) < end; line++) {
    seen_t *e = &seen_tab[line & ((1u << SEEN_BITS) - 1)];
    if (e->tag != line + 1 || e->seg != seg) *e = (seen_t){ line + 1, seg, 0, 0 };
    if (writes) e->wm |= line_mask(line, a, end);
    else e->rm |= line_mask(line, a, end);
  }
}

/* Does [a, a+n) meet window memory (checked by the window's own shadow)? */
static int in_window(uintptr_t a, size_t n) {
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
  while (a < end) {
    uintptr_t cend = (a | (CHUNK - 1)) + 1, e = end < cend ? end : cend;
    chunk_t *c = chunk_get(a, 1);
    if (!c) return;
    uint64_t off = a - c->base;
    if (!(e - a == 8 && !(off & 7) && hrace__shadow_steady8(hrace__shadow_granules(&c->sh), off, id)))
      hrace__shadow_access(&c->sh, off, e - a, id, hrace__thread_view(), sink, c);
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
  int plain = !(flags & HRACE_ACC_ATOMIC), writes = (flags & HRACE_ACC_WRITE) != 0;
  uint64_t seg = hrace__athread_segment(at);
  uintptr_t end = a + n;
  if (plain && n <= (64u << SEEN_BITS) / 4 && seen_covers(a, end, writes, seg)) return;
  if (in_window(a, n)) return;
  at->busy = true;
  if (!stk.known) stack_learn();
  if (a >= stk.lo && a < stk.hi && a < stk.min) stk.min = a;
  uint32_t cls = plain ? 0 : 0xA7000000u | (uint32_t)n;
  hrace_aid_t id = hrace__athread_aid(at, pc, flags, op, cls);
  int filter = plain && n <= (64u << SEEN_BITS) / 4;   /* longer: it would only evict itself */
  if (!filter || n <= 64) {
    shadow_run(at, a, end, id);
  } else {
    /* A range: only its lines not already recorded in this segment (seen_t above). */
    uintptr_t run = 0;
    for (uintptr_t l = a & ~(uintptr_t)63; l < end; l += 64) {
      uintptr_t lo = l > a ? l : a, hi = l + 64 < end ? l + 64 : end;
      if (seen_covers(lo, hi, writes, seg)) {
        if (run) shadow_run(at, run, lo, id), run = 0;
      } else if (!run) {
        run = lo;
      }
    }
    if (run) shadow_run(at, run, end, id);
  }
  if (filter) seen_mark(a, end, writes, seg);
  at->busy = false;
}

/* A thread that starts running instrumented code may sit on the stack of one that ended (the
 * C library caches stacks): what the old thread left there says nothing about the new one. */
void hrace__full_thread_begins(void) {
  if (!atomic_load_explicit(&hrace__full_active, memory_order_acquire)) return;
  hrace_athread_t *at = &hrace__at;
  bool busy = at->busy;
  at->busy = true;
  stack_learn();
  if (stk.lo) hrace__full_clear(stk.lo, stk.hi - stk.lo);
  stk.min = (uintptr_t)__builtin_frame_address(0);
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
