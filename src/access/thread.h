/* Per-thread state of the access layer: the shadow call stack that __tsan_func_entry / _exit
 * maintain, the thread's history table (history.h), and whether the thread runs instrumented
 * code at all. Initial-exec TLS, so the callbacks reach it with one %fs-relative access; kept
 * apart from the runtime's hrace_thread_t because the callbacks touch it on every function
 * entry, which must not wait for the runtime's lazy thread set-up. */
#ifndef HRACE_ACCESS_THREAD_H
#define HRACE_ACCESS_THREAD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clocks/access.h"
#include "core/proc.h"
#include "core/thread.h"

#define HRACE_SSTACK 64           /* return addresses kept (a ring: the innermost ones win) */
#define HRACE_AIDS 128            /* descriptors cached by code address (hrace__athread_aid):
                                     64 sets of 2 */
/* No granule word is all ones (a block pointer is aligned; the memo never answers for words
 * with its flag bits set, clocks/shadow.c): an aids entry's "no memo answer". */
#define HRACE_AID_NO_ANSWER (~(uint64_t)0)

struct hrace_hist;

typedef struct hrace_athread {
  unsigned depth;                 /* call depth seen through func_entry / func_exit */
  /* Four flags, and the same as one word (`state`): HRACE_ATHREAD_ORDINARY when the thread is
   * registered, not busy, knows its stack and is the application's, which full mode's
   * callbacks test with one compare (access/full.c, full_fast). Written only as the flags. */
  union {
    struct {
      bool app;                   /* this thread ran instrumented code (registered) */
      bool busy;                  /* inside hrace's own handling of an access: the memcpy
                                     interposer passes hrace's own calls straight through */
      bool stack_known;           /* stack_lo .. stack_min below are set (access/full.c) */
      bool internal;              /* its runtime state has no thread number (tid < 0), as
                                     read at its registration (a thread hrace__thread_internal
                                     made so does so before any instrumented code) */
    };
    uint32_t state;
  };
  /* Full mode (access/full.c): the thread's stack, [stack_lo, stack_hi), and the lowest
   * address in it that full mode saw accessed since the last context switch (what a switch must
   * forget). */
  uintptr_t stack_lo, stack_hi, stack_min;
  struct hrace_hist *hist;        /* the thread's history table, once it records */
  uintptr_t access_pc;            /* the access being handled (hrace__stack_capture) */
  /* The last tracked range the slow path found (it starts at rbase), the parts of it around
   * its last two accesses there that no other range meets ([rlo, rhi) the last, [rlo2, rhi2)
   * the one before, or empty), and the filter version they were found under (filter.h):
   * accesses inside either skip the search. Two, because a loop that reads one row and writes
   * the next alternates between two such parts when a buffer region lies between the rows
   * (the wavefront's put origin at each row's end). */
  unsigned rseq;
  int rkind;
  uintptr_t rbase, rlo, rhi, rlo2, rhi2;
  void *rowner;
  const _Atomic uint64_t *rgran;  /* a window's: its shadow's granule words */
  /* The range found before it, when another range was found since, with its last part: an
   * access there swaps the two (hrace__access_slow), so that a loop that reads one window and
   * writes another (a stencil's two arrays) finds both without the search. */
  unsigned aseq;
  int akind;
  uintptr_t abase, alo, ahi;
  void *aowner;
  const _Atomic uint64_t *agran;
  /* The last gap between tracked ranges the slow path met (filter.h), likewise. */
  unsigned gseq;
  uintptr_t glo, ghi;
  /* The part of an idle buffer range (filter.h, hrace_buffer_access_t) the slow path met last,
   * likewise: nothing in flight there while the version stays. */
  unsigned iseq;
  uintptr_t ilo, ihi;
  /* The descriptors of this thread's last accesses (hrace__local_access), by code address and
   * kind, with the segment they belong to, and one answer of the shadow's first-touch memo for
   * that descriptor (clocks/shadow.h, hrace_shadow_memo_t: a granule holding mv becomes mnext;
   * HRACE_AID_NO_ANSWER in both while there is none), which full mode's fast path reads with
   * the entry instead of looking the memo up (access/full.c, full_fast). */
  struct {
    uintptr_t pc;
    uint64_t seg;
    uint16_t flags;
    hrace_aid_t aid;
    uint64_t mv, mnext;
  } aids[HRACE_AIDS];
  hrace_thread_t *rt;             /* the runtime's state of this thread (its clock context) */
  uintptr_t frames[HRACE_SSTACK]; /* frames[d % HRACE_SSTACK]: the call at depth d */
  uintptr_t sps[HRACE_SSTACK];    /* the stack pointer when that call's function entered, below
                                     its locals: what lies under the innermost live one is dead
                                     (full mode's task switch, access/full.c) */
  /* stamps[d % HRACE_SSTACK]: the number of the push that made the call at depth d, from a
   * per-thread count (nstamp) that never repeats: hrace__athread_stack_ver. */
  uint64_t nstamp;
  uint64_t stamps[HRACE_SSTACK];
} hrace_athread_t;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "hrace_athread_t's state word assumes little-endian flags"
#endif
/* app and stack_known set, busy and internal clear. */
#define HRACE_ATHREAD_ORDINARY (1u | 1u << 16)
_Static_assert(offsetof(hrace_athread_t, app) == offsetof(hrace_athread_t, state) &&
                   offsetof(hrace_athread_t, stack_known) == offsetof(hrace_athread_t, state) + 2,
               "the state word's bytes are the flags in order");

extern __thread hrace_athread_t hrace__at __attribute__((tls_model("initial-exec")));

/* First instrumented code on this thread: count it; a second such thread turns the history
 * on (history.h). Cold, once per thread. */
void hrace__athread_register(void);

/* The calling thread's current segment, as a number that changes whenever its clock ticks, and
 * so whenever hrace__local_access would hand out a new descriptor for the same code address:
 * the context running on the thread and its local epoch, which is what hrace__local_access keys
 * its descriptors by. The history's cells and the descriptor cache below are tagged with it;
 * it is the one place in src/access that knows the runtime's clock design. Valid once the
 * thread is registered (callers have a cached range or a history table, made only then). */
__attribute__((always_inline)) static inline uint64_t hrace__athread_segment(const hrace_athread_t *t) {
  const hrace_ctx_t *c = t->rt->cur;
  return (uint64_t)c->idx << 32 | c->l.c[c->idx];
}

/* Is [a, a+n) in the gap between tracked ranges or the idle buffer part this thread met last,
 * under filter version seq (the slow path's caches above)? Nothing is in flight there then. */
static inline bool hrace__athread_cached_untracked(const hrace_athread_t *t, uintptr_t a,
                                                   unsigned n, unsigned seq) {
  return (t->gseq == seq && a >= t->glo && a + n <= t->ghi) ||
         (t->iseq == seq && a >= t->ilo && a + n <= t->ihi);
}

/* The shadow stack's version: the stamp of the innermost live push (0 at depth 0). With the
 * depth, it names the call chain of the innermost instrumented activation: a stamp is given
 * once, and while that activation lives the frames below it cannot change (changing one pops
 * it first; a new push at its depth has a new stamp). Equal (depth, version) are the same
 * activation, hence the same real caller chain: one compare for src/rma's repeated calls
 * instead of the innermost frames one by one (docs/rma.md, "Repeated operations"). */
static inline uint64_t hrace__athread_stack_ver(const hrace_athread_t *t) {
  unsigned d = t->depth;
  return d ? t->stamps[(d - 1) % HRACE_SSTACK] : 0;
}

/* hrace__local_access through a small per-thread cache: in a loop over a window the same few
 * code addresses repeat, and the runtime's call (with its own cache) cost a third of the
 * 10 ns a checked access took (bench/access). Two ways, *skewed*: a code address may sit in
 * slot h0(pc) of the first half or h1(pc) of the second, two multiplicative hashes with
 * different constants, and one that leaves its first-half slot to a newcomer moves to its
 * second-half one. With one hash for both ways (a set of two), three call sites that share a
 * set evict each other for good: the unrolled loops' call sites are 0x14-0x25 bytes apart
 * and, with 16 slots indexed by pc ^ pc >> 5 ^ pc >> 9, the twelve of clang's unrolled vector
 * loop in bench/omp/full.c (`loop`) shared nine; 32 sets of two still put three of the
 * stencil's 22 call sites per row (bench/kernels/stencil.c) in one set, 3 runtime calls per
 * row (bench/README.md, "Session 13"). Skewed, three addresses must also meet in the second
 * hash to do that. */
static inline unsigned hrace__athread_aid_h0(uintptr_t pc) {
  return (unsigned)(((uint64_t)pc * 0x9E3779B97F4A7C15ull) >> 58);
}
static inline unsigned hrace__athread_aid_h1(uintptr_t pc) {
  return HRACE_AIDS / 2 + (unsigned)(((uint64_t)pc * 0xC2B2AE3D27D4EB4Full) >> 58);
}
/* The slot that holds pc's descriptor if the cache has one: its first-way slot, else its
 * second-way one (whose pc the caller still compares). */
static inline unsigned hrace__athread_aid_slot(const hrace_athread_t *t, uintptr_t pc) {
  unsigned k = hrace__athread_aid_h0(pc);
  return t->aids[k].pc == pc ? k : hrace__athread_aid_h1(pc);
}
__attribute__((always_inline)) static inline hrace_aid_t
hrace__athread_aid(hrace_athread_t *t, uintptr_t pc, uint16_t flags, uint16_t op, uint32_t cls) {
  uint64_t seg = hrace__athread_segment(t);
  unsigned k = hrace__athread_aid_slot(t, pc);
  if (t->aids[k].pc == pc && t->aids[k].seg == seg && t->aids[k].flags == flags)
    return t->aids[k].aid;
  t->access_pc = pc;
  hrace_aid_t id = hrace__local_access(pc, flags, op, cls);
  /* Inside a parallel region, reports name the thread as OpenMP numbers it (constant within a
   * segment: the implicit task's begin and end are synchronisation events). */
  if (t->rt->omp_num1 && id) hrace__access_get(id)->thread = t->rt->omp_num1 - 1;
  if (t->aids[k].pc != pc) {          /* in neither way: the first way's entry moves to its
                                         second-way slot */
    k = hrace__athread_aid_h0(pc);
    if (t->aids[k].pc) t->aids[hrace__athread_aid_h1(t->aids[k].pc)] = t->aids[k];
  }
  t->aids[k].pc = pc;
  t->aids[k].seg = seg;
  t->aids[k].flags = flags;
  t->aids[k].aid = id;
  t->aids[k].mv = t->aids[k].mnext = HRACE_AID_NO_ANSWER;
  return id;
}

static inline hrace_athread_t *hrace__athread(void) {
  hrace_athread_t *t = &hrace__at;
  if (__builtin_expect(!t->app, 0)) hrace__athread_register();
  return t;
}
#endif
