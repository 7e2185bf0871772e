/* hrace's runtime for the ThreadSanitizer instrumentation ABI (clang / gcc / gfortran
 * -fsanitize=thread at compile time only). Every load and store of instrumented code lands
 * here; the filter (filter.h) sends almost all of them back after a compare, the rest go to
 * the window shadow or to the in-flight buffers (src/rma); while more than one thread runs,
 * those outside windows are also recorded in the history of plain memory (history.h).
 *
 * The set of entry points is the union of what clang 14 and 16, gcc 12 and gfortran 12 emit
 * (checked with `nm -u` on instrumented objects: docs/access.md) and what LLVM's and gcc's
 * runtimes export for compiler use: init, function entry / exit, reads and writes of 1-16
 * bytes (plain, unaligned, volatile, with explicit pc), ranges, the vptr hooks of C++,
 * __tsan_mem{cpy,move,set} (clang 16), the C11 atomic family of 8 to 128 bits, fences. */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "access/check.h"
#include "access/full.h"
#include "core/mpicode.h"
#include "access/thread.h"
#include "clocks/shadow.h"
#include "report/report.h"
#include "core/race.h"

/* One tracked range met by an access: the window's shadow, or src/rma for buffers and peers. */
/* Returns 1 when r is an idle buffer (filter.h, hrace_buffer_access_t). */
static int at_range(const hrace_range_t *r, uintptr_t a, size_t len, uint32_t cls, uint16_t flags,
                    uint16_t op, uintptr_t pc) {
  uintptr_t lo = a > r->lo ? a : r->lo, hi = a + len < r->hi ? a + len : r->hi;
  if (r->kind == HRACE_TRACK_BUFFER)
    return hrace__buffer_access_hook(r->owner, lo, hi - lo, flags, op, cls, pc);
  hrace_shadow_t *cells = r->owner;   /* HRACE_TRACK_WINDOW: a window segment's shadow */
  hrace_aid_t id = hrace__athread_aid(&hrace__at, pc, flags, op, cls);
  hrace__shadow_access(cells, lo - r->lo, hi - lo, id, hrace__thread_view(), hrace__race_sink, cells);
  return 0;
}

/* Loads and stores of instrumented code made inside an MPI call are the application's too
 * (user-defined reduction operators, error handlers): unlike the memcpy interposer (which
 * also sees libmpi's own copies and checks the wrappers' depth), these paths don't ask. */
void hrace__access_slow(uintptr_t a, size_t len, unsigned width, uint16_t flags, uint16_t op,
                        uintptr_t pc) {
  hrace_range_t buf[16], *r = buf;
  unsigned seq = atomic_load_explicit(&hrace__filter_seq, memory_order_acquire);
  const hrace_athread_t *t = &hrace__at;
  if (t->gseq == seq && a >= t->glo && a + len <= t->ghi) return;   /* the gap met last */
  /* Inside a cached part of the range found last (thread.h): that range alone, as the search
   * would answer (a range call of a hoisted loop, a memcpy within a window). The part's version
   * is even, so a version in change misses. */
  int cached = t->rseq == seq && ((a >= t->rlo && a + len <= t->rhi) ||
                                  (a >= t->rlo2 && a + len <= t->rhi2));
  if (cached && t->rkind == HRACE_TRACK_WINDOW && !t->busy && hrace__proc.mpi_ready &&
      !(flags & HRACE_ACC_ATOMIC)) {
    /* A hoisted loop's range inside a cached part of a window (a stencil's row): straight to
     * the shadow, as at_range below would go, without the copy, the registration and the
     * busy flag (as tracked() for single accesses: hrace's own memory is never tracked). */
    hrace_athread_t *at = &hrace__at;
    hrace_shadow_t *cells = t->rowner;
    at->access_pc = pc;
    hrace_aid_t id = hrace__athread_aid(at, pc, flags, op, 0);
    hrace__shadow_access(cells, a - t->rbase, len, id, hrace__thread_view(), hrace__race_sink,
                         cells);
    return;
  }
  if (!cached && t->aseq == seq && a >= t->alo && a + len <= t->ahi) {
    /* In the range found before the last one: the two change places (the last one keeps
     * its last part only). */
    hrace_athread_t *at = &hrace__at;
    const int k = at->rkind;
    const uintptr_t b = at->rbase, lo = at->rlo, hi = at->rhi;
    void *o = at->rowner;
    const _Atomic uint64_t *gr = at->rgran;
    at->rkind = at->akind, at->rbase = at->abase, at->rlo = at->alo, at->rhi = at->ahi;
    at->rowner = at->aowner, at->rgran = at->agran;
    at->rlo2 = at->rhi2 = 0;
    at->akind = k, at->abase = b, at->alo = lo, at->ahi = hi, at->aowner = o, at->agran = gr;
    at->aseq = at->rseq, at->rseq = seq;
    cached = 1;
  }
  unsigned n = 1;
  if (cached) buf[0] = (hrace_range_t){ t->rbase, a + len, t->rkind, t->rowner };
  else n = hrace__filter_find(a, len, buf, 16);
  if (!n) {                       /* inside the bounds, between tracked ranges: remember the gap */
    hrace_athread_t *at = &hrace__at;
    uintptr_t lo, hi;
    unsigned gs;
    if (hrace__filter_gap(a, &lo, &hi, &gs) && a + len <= hi) at->gseq = gs, at->glo = lo, at->ghi = hi;
    return;
  }
  hrace_athread_t *at = hrace__athread();   /* (registers a thread whose first access is this) */
  if (at->busy || !hrace__proc.mpi_ready) return;   /* hrace's own memcpy; no MPI yet */
  at->busy = true;
  if (n > 16 && (r = malloc(n * sizeof *r)) != NULL) n = hrace__filter_find(a, len, r, n);
  if (!r) r = buf, n = 16;
  at->access_pc = pc;
  uint32_t cls = (flags & HRACE_ACC_ATOMIC) ? 0xA7000000u | width : 0;
  int idle = 1;
  for (unsigned i = 0; i < n; i++) idle &= at_range(&r[i], a, len, cls, flags, op, pc);
  /* Remember the range, and the part of it around this access that no other range meets,
   * for the next access (under the version seen at the start: a newer one makes the cache
   * miss). */
  uintptr_t clo, chi;
  unsigned cseq;
  if (n == 1 && !cached && hrace__filter_alone(&r[0], a, len, &clo, &chi, &cseq) && cseq == seq) {
    int same = at->rseq == seq && at->rbase == r[0].lo && at->rowner == r[0].owner &&
               at->rkind == r[0].kind;
    if (!same && at->rseq == seq && at->rhi > at->rlo) {   /* keep the last range as the other */
      at->aseq = seq, at->akind = at->rkind, at->abase = at->rbase, at->alo = at->rlo;
      at->ahi = at->rhi, at->aowner = at->rowner, at->agran = at->rgran;
    }
    at->rlo2 = same ? at->rlo : 0;
    at->rhi2 = same ? at->rhi : 0;
    at->rseq = seq;
    at->rbase = r[0].lo;
    at->rlo = clo;
    at->rhi = chi;
    at->rkind = r[0].kind;
    at->rowner = r[0].owner;
    at->rgran = r[0].kind == HRACE_TRACK_WINDOW
                    ? hrace__shadow_granules(r[0].owner) : NULL;
  }
  /* An idle buffer (a region kept tracked after its operations completed, rma/buffers.c): the
   * part of it that no other range meets, as just cached, is skipped by this thread's next
   * accesses (tracked()) until the version changes, which it does before anything is in
   * flight there again (filter.h). A put's origin array that the program computes on between
   * epochs took the hook's path on every access (bench/README.md, "Session 13, after the
   * merges": the particles kernel). seq was read before the hook looked at the region. */
  if (idle && n == 1 && r[0].kind == HRACE_TRACK_BUFFER && at->rseq == seq &&
      at->rkind == HRACE_TRACK_BUFFER && at->rowner == r[0].owner) {
    if (a >= at->rlo && a + len <= at->rhi) at->iseq = seq, at->ilo = at->rlo, at->ihi = at->rhi;
    else if (a >= at->rlo2 && a + len <= at->rhi2)
      at->iseq = seq, at->ilo = at->rlo2, at->ihi = at->rhi2;
  }
  if (r != buf) free(r);
  at->busy = false;
}

/* Near tracked memory. In the window this thread found last, with a descriptor it made before
 * (the steady state of a loop over a window), hrace__access_more goes straight to the shadow's
 * check (bench/access: the budget is 5 ns per access); anything else comes here. hrace's own
 * memcpy calls while the shadow reports a race need no `busy` flag: hrace's memory is never
 * tracked, and the history guards itself. */
__attribute__((noinline)) static void tracked_other(uintptr_t a, unsigned n, uint16_t flags,
                                                    uint16_t op, uintptr_t pc,
                                                    hrace_shadow_t *cells, uintptr_t base) {
  uint32_t cls = (flags & HRACE_ACC_ATOMIC) ? 0xA7000000u | n : 0;
  if (!cells) {
    hrace__access_slow(a, n, n, flags, op, pc);
    return;
  }
  hrace_athread_t *at = &hrace__at;
  hrace_aid_t id = hrace__athread_aid(at, pc, flags, op, cls);
  hrace__shadow_access(cells, a - base, n, id, hrace__thread_view(), hrace__race_sink, cells);
}

/* Inside one of the cached parts of the last range found (thread.h). */
static inline int in_cached(const hrace_athread_t *at, uintptr_t a, unsigned n) {
  return (a >= at->rlo && a + n <= at->rhi) || (a >= at->rlo2 && a + n <= at->rhi2);
}

/* The steady state of a loop over a window: the access is in the window this thread found
 * last, with a descriptor it made before, an aligned 8 bytes, and the shadow already records
 * it. A leaf with no call, so that hrace__access_more saves no register on its way (bench/
 * access: the budget is 5 ns per access; this path is about 40 instructions from the
 * callback's first). */
__attribute__((always_inline)) static inline int steady(const hrace_athread_t *at, uintptr_t a,
                                                       unsigned n, uint16_t flags,
                         uintptr_t pc) {
  unsigned k = hrace__athread_aid_slot(at, pc);
  return n == 8 && !((a - at->rbase) & 7) && in_cached(at, a, n) &&
         at->rseq == atomic_load_explicit(&hrace__filter_seq, memory_order_acquire) &&
         at->rkind == HRACE_TRACK_WINDOW && at->aids[k].pc == pc && at->aids[k].flags == flags &&
         !at->busy && at->aids[k].seg == hrace__athread_segment(at) &&
         hrace__shadow_steady8(at->rgran, a - at->rbase, at->aids[k].aid);
}

/* Near tracked memory, not in the steady state (done = 0), or in it with the history on
 * (done = 1): in the window this thread found last, with a descriptor it made before, straight
 * to the shadow; anything else through tracked_other. Then the history. */
__attribute__((noinline)) static void tracked(uintptr_t a, unsigned n, uint16_t flags,
                                              uint16_t op, uintptr_t pc, int done) {
  hrace_athread_t *at = &hrace__at;
  if (!done) {
    const unsigned s = atomic_load_explicit(&hrace__filter_seq, memory_order_acquire);
    if (hrace__athread_cached_untracked(at, a, n, s)) done = 1;   /* nothing in flight there */
  }
  int in_window = 0;
  if (!done) {
    /* In the window found last, or in the one found before it: a loop that reads one window
     * and writes another (a stencil's two arrays) alternates between them on every row, and
     * each change went through hrace__access_slow's swap (4 100 calls per iteration of the
     * stencil at 1024: bench/README.md, "Session 13"). */
    const unsigned seq = atomic_load_explicit(&hrace__filter_seq, memory_order_acquire);
    hrace_shadow_t *cells = NULL;
    uintptr_t base = 0;
    if (!at->busy && hrace__proc.mpi_ready) {
      if (at->rseq == seq && in_cached(at, a, n) && at->rkind == HRACE_TRACK_WINDOW)
        cells = at->rowner, base = at->rbase;
      else if (at->aseq == seq && a >= at->alo && a + n <= at->ahi &&
               at->akind == HRACE_TRACK_WINDOW)
        cells = at->aowner, base = at->abase;
    }
    in_window = cells != NULL;
    unsigned k = hrace__athread_aid_slot(at, pc);
    if (in_window && at->aids[k].pc == pc && at->aids[k].flags == flags &&
        at->aids[k].seg == hrace__athread_segment(at)) {
      /* Mostly the first touch of the granule in this segment (a row's edge element): the
       * first-touch path straight away, which also says when the shadow already records it;
       * hrace__shadow_access decides the rest (and tries it again). */
      const hrace_aid_t id = at->aids[k].aid;
      const hrace_vc_t *view = hrace__thread_view();
      if ((n != 8 && n != 16) || !hrace__shadow_quick(cells, a - base, n, id, view))
        hrace__shadow_access(cells, a - base, n, id, view, hrace__race_sink, cells);
    } else
      tracked_other(a, n, flags, op, pc, cells, base);
  }
  hrace__full_check(a, n, flags, op, pc);     /* full mode, unless window memory (full.h) */
  if (!in_window && !hrace__access_in_window(a, n))   /* window memory: its shadow (check.h) */
    hrace__history_access(a, n, flags, op, pc);
}

/* The first touch of a granule in this segment, in one pass: an aligned 8-byte access in one
 * of the two cached windows (thread.h), with a descriptor for its code address and segment,
 * whose granule holds the word the first-touch memo's first way answers for (clocks/shadow.h:
 * the answer holds for good), the answer stored under the chunk's lock after a re-check
 * (hrace__shadow_replace), as access/full.c's full_fast does for thread memory. A stencil's
 * edge elements are such accesses, one per statement and row: through tracked() and
 * hrace__shadow_quick they cost about 250 instructions each (bench/README.md, "Session 13").
 * Anything else goes to tracked(), which decides as before. Full mode too (session 17; it was
 * window mode only): window memory is the window shadow's alone there, tracked()'s full-mode
 * check returns at once for it (full.c's in_window), as the steady state above skips it; in
 * full mode the stencils' and hybrids' row edges went through tracked() and that look-up. */
__attribute__((noinline)) static void first_touch(uintptr_t a, unsigned n, uint16_t flags,
                                                  uint16_t op, uintptr_t pc) {
  hrace_athread_t *at = &hrace__at;
  const unsigned seq = atomic_load_explicit(&hrace__filter_seq, memory_order_acquire);
  if (n == 8 && !at->busy && hrace__proc.mpi_ready) {
    hrace_shadow_t *cells = NULL;
    uintptr_t base = 0;
    if (at->rseq == seq && in_cached(at, a, n) && at->rkind == HRACE_TRACK_WINDOW)
      cells = at->rowner, base = at->rbase;
    else if (at->aseq == seq && a >= at->alo && a + n <= at->ahi &&
             at->akind == HRACE_TRACK_WINDOW)
      cells = at->aowner, base = at->abase;
    const unsigned k = hrace__athread_aid_slot(at, pc);
    if (cells && !((a - base) & 7) && at->aids[k].pc == pc && at->aids[k].flags == flags &&
        at->aids[k].seg == hrace__athread_segment(at)) {
      const hrace_aid_t id = at->aids[k].aid;
      const hrace_vc_t *view = hrace__thread_view(), *l = view->local;
      const uint64_t g = (a - base) / 8;
      const uint64_t v = atomic_load_explicit(&hrace__shadow_granules(cells)[g],
                                              memory_order_acquire);
      const hrace_shadow_memo_t *m = &hrace__shadow_memo[id % HRACE_SHADOW_MEMO][0];
      if (l && m->v == v && m->id == id && m->l == l &&
          (m->next == v || hrace__shadow_replace(cells, g, 1, v, m->next)))
        return;
      /* 0 in a window's shadow: mostly a granule whose state its span's summary holds (an
       * edge element's exception, docs/access.md "Span summaries"): the first-touch path. */
      if (l && !v && hrace__shadow_quick0(cells, g, id, view)) return;
    }
  }
  tracked(a, n, flags, op, pc, 0);
}

/* An access that meets no tracked range, while the history records: out of line, so that
 * hrace__access_more saves no register on its way (with the history's fast check inlined
 * there, it pushed and popped five on every access it handled: 10 of the ~100 instructions the
 * `win` load of bench/rma/manygets.c cost). */
__attribute__((noinline)) static void untracked(uintptr_t a, unsigned n, uint16_t flags,
                                                uint16_t op, uintptr_t pc) {
  hrace__history_access(a, n, flags, op, pc);
}

/* Only tail calls here, so that neither the steady state nor the untracked path pays a
 * prologue. (The cached range implies MPI is up: ranges exist only between MPI_Init and
 * MPI_Finalize.) */
__attribute__((always_inline)) static inline void more(uintptr_t a, unsigned n, uint16_t flags,
                                                       uint16_t op, uintptr_t pc) {
  const hrace_athread_t *at = &hrace__at;
  /* Outside the tracked ranges' bounds, in the gap or idle part this thread met last, or on a
   * page that holds no tracked byte (filter.h's page table: arrays and stack locals between
   * the ranges). The last part of a window this thread met goes first, so that the steady
   * state of a loop over a window pays for neither (it is window memory there if the version
   * is still the part's: steady() checks). The caches go before the page table: a local
   * beside a stack buffer is on a page with a bit but in the gap (manygets' load of `win`: 48
   * instructions, 67 the other way round). */
  if (HRACE_LIKELY(!hrace__filter_tracked(a, n))) {
  out:
    if (atomic_load_explicit(&hrace__full_active, memory_order_relaxed)) {
      /* full mode: all memory (full.h) */
      if (n == 8)
        hrace__full_untracked8(a, n, flags, op, pc);
      else if (n == 16)
        hrace__full_untracked16(a, n, flags, op, pc);
      else
        hrace__full_untracked(a, n, flags, op, pc);
      return;
    }
    if (HRACE_UNLIKELY(hrace__filter_history())) untracked(a, n, flags, op, pc);
    return;
  }
  if (!(a >= at->rlo && a + n <= at->rhi)) {
    /* The gap and idle caches (thread.h) are exact for their version, as tracked() would
     * find them (through tracked(), manygets' load of `win` cost 106 instructions). */
    const unsigned s = atomic_load_explicit(&hrace__filter_seq, memory_order_acquire);
    if (hrace__athread_cached_untracked(at, a, n, s) || !hrace__filter_page(a))
      goto out;
    if (!(a >= at->rlo2 && a + n <= at->rhi2)) {
      first_touch(a, n, flags, op, pc);
      return;
    }
  }
  /* The steady state is window memory, which the history leaves to the shadow (check.h). */
  if (HRACE_LIKELY(steady(at, a, n, flags, pc))) return;
  first_touch(a, n, flags, op, pc);
}
void hrace__access_more(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  more(a, n, flags, op, pc);
}
/* The commonest sizes with n a constant: full mode's path and the steady state's size tests
 * fold (bench/README.md, "Session 18: full mode per callback"). */
__attribute__((noclone)) void
hrace__access_more8(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (n != 8) __builtin_unreachable();
  more(a, n, flags, op, pc);
}
__attribute__((noclone)) void
hrace__access_more16(uintptr_t a, unsigned n, uint16_t flags, uint16_t op, uintptr_t pc) {
  if (n != 16) __builtin_unreachable();
  more(a, n, flags, op, pc);
}

#define RD (HRACE_ACC_READ)
#define WR (HRACE_ACC_WRITE)
#define CHECK(a, n, fl, op, pc) HRACE_ACCESS_CHECK(a, n, fl, op, pc)
/* Each callback starts a cache line, so that its miss path (about 30 bytes) never has a jump
 * across a 32-byte boundary: on this machine's CPU such a jump (Intel's JCC erratum
 * mitigation) made the miss of an 8-byte store cost 1.9-2.3 ns instead of 0.8-1.0. */
#define HOOK HRACE_EXPORT __attribute__((aligned(64)))

/* The module constructor of every instrumented object calls this before main: the thread
 * that runs constructors is an application thread, and the module is the application's. */
HOOK void __tsan_init(void) {
  hrace__athread();
  hrace__module_instrumented(HRACE_RET_ADDR());
  hrace__report_process();   /* checked with or without MPI: report at exit */
}

/* The shadow call stack (stack.h). The ring keeps the innermost HRACE_SSTACK frames, so a
 * depth that only grows (longjmp out of instrumented frames) costs nothing but old frames. */
HOOK void __tsan_func_entry(void *pc) {
  hrace_athread_t *t = &hrace__at;
  if (HRACE_UNLIKELY(!t->app)) hrace__athread_register();
  unsigned d = t->depth;
  t->frames[d % HRACE_SSTACK] = (uintptr_t)pc;
#if defined(__x86_64__)
  uintptr_t sp;
  __asm__("mov %%rsp, %0" : "=r"(sp));   /* no frame set-up for this leaf */
  t->sps[d % HRACE_SSTACK] = sp;
#else
  t->sps[d % HRACE_SSTACK] = (uintptr_t)__builtin_frame_address(0);
#endif
  t->stamps[d % HRACE_SSTACK] = ++t->nstamp;   /* thread.h: hrace__athread_stack_ver */
  t->depth = d + 1;
}
HOOK void __tsan_func_exit(void) {
  hrace_athread_t *t = &hrace__at;
  if (HRACE_LIKELY(t->depth)) t->depth--;
}

#define PLAIN(n)                                                                                  \
  HOOK void __tsan_read##n(void *a) { CHECK(a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); }  \
  HOOK void __tsan_write##n(void *a) { CHECK(a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); } \
  HOOK void __tsan_unaligned_read##n(void *a) { CHECK(a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); } \
  HOOK void __tsan_unaligned_write##n(void *a) { CHECK(a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); } \
  HOOK void __tsan_volatile_read##n(void *a) { CHECK(a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); } \
  HOOK void __tsan_volatile_write##n(void *a) { CHECK(a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); } \
  HOOK void __tsan_unaligned_volatile_read##n(void *a) { CHECK(a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); } \
  HOOK void __tsan_unaligned_volatile_write##n(void *a) { CHECK(a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); } \
  HOOK void __tsan_read##n##_pc(void *a, void *pc) { CHECK(a, n, RD, HRACE_OP_LOAD, (uintptr_t)pc); } \
  HOOK void __tsan_write##n##_pc(void *a, void *pc) { CHECK(a, n, WR, HRACE_OP_STORE, (uintptr_t)pc); }
PLAIN(1) PLAIN(2) PLAIN(4) PLAIN(8) PLAIN(16)

#define RANGE(a, n, fl, op, pc) hrace__access_check_range((uintptr_t)(a), n, fl, op, pc)
HOOK void __tsan_read_range(void *a, unsigned long n) { RANGE(a, n, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); }
HOOK void __tsan_write_range(void *a, unsigned long n) { RANGE(a, n, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); }
HOOK void __tsan_read_range_pc(void *a, unsigned long n, void *pc) { RANGE(a, n, RD, HRACE_OP_LOAD, (uintptr_t)pc); }
HOOK void __tsan_write_range_pc(void *a, unsigned long n, void *pc) { RANGE(a, n, WR, HRACE_OP_STORE, (uintptr_t)pc); }
HOOK void __tsan_vptr_update(void **p, void *v) { CHECK(p, sizeof *p, WR, HRACE_OP_STORE, HRACE_RET_ADDR()); }
HOOK void __tsan_vptr_read(void **p) { CHECK(p, sizeof *p, RD, HRACE_OP_LOAD, HRACE_RET_ADDR()); }

/* Atomics: the instrumentation replaces the atomic instruction with the call, so the call must
 * perform it. Memory orders are honoured by always using the strongest (seq_cst): correct for
 * every program, slightly slower than needed for relaxed ones. The operations are checked as
 * atomic accesses (HRACE_ACC_ATOMIC, class "C11 atomic of this width"): they don't race with
 * each other, they do with plain accesses and with MPI accumulates. 128-bit ones go through
 * libatomic (lock-free with cmpxchg16b where the CPU has it, as the compiler's own would). */
typedef __int128 a128;
#define AT_RD (HRACE_ACC_READ | HRACE_ACC_ATOMIC)
#define AT_WR (HRACE_ACC_WRITE | HRACE_ACC_ATOMIC)
#define AT_RMW (HRACE_ACC_READ | HRACE_ACC_WRITE | HRACE_ACC_ATOMIC)
#define ATOMICS(bits, T)                                                                         \
  HOOK T __tsan_atomic##bits##_load(const volatile T *a, int mo) {                       \
    CHECK(a, sizeof(T), AT_RD, HRACE_OP_ATOMIC_LOAD, HRACE_RET_ADDR());                          \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                              \
  HOOK void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) {                    \
    CHECK(a, sizeof(T), AT_WR, HRACE_OP_ATOMIC_STORE, HRACE_RET_ADDR());                         \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                    \
  }                                                                                              \
  RMW(bits, T, exchange, __atomic_exchange_n)                                                    \
  RMW(bits, T, fetch_add, __atomic_fetch_add) RMW(bits, T, fetch_sub, __atomic_fetch_sub)        \
  RMW(bits, T, fetch_and, __atomic_fetch_and) RMW(bits, T, fetch_or, __atomic_fetch_or)          \
  RMW(bits, T, fetch_xor, __atomic_fetch_xor) RMW(bits, T, fetch_nand, __atomic_fetch_nand)      \
  HOOK int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int fmo) { \
    CHECK(a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());                          \
    return __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
  }                                                                                              \
  HOOK int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int fmo) { \
    CHECK(a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());                          \
    return __atomic_compare_exchange_n(a, c, v, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
  }                                                                                              \
  HOOK T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) { \
    CHECK(a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());                          \
    __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                \
    return c;                                                                                    \
  }
#define RMW(bits, T, name, builtin)                                                              \
  HOOK T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo) {                      \
    CHECK(a, sizeof(T), AT_RMW, HRACE_OP_ATOMIC_RMW, HRACE_RET_ADDR());                          \
    return builtin(a, v, __ATOMIC_SEQ_CST);                                                      \
  }
ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
ATOMICS(128, a128)
#undef RMW
HOOK void __tsan_atomic_thread_fence(int mo) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
HOOK void __tsan_atomic_signal_fence(int mo) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
