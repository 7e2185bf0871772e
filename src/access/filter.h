/* The access filter: which addresses hrace tracks (local window memory, in-flight RMA
 * buffers, peers' shared-memory segments). Almost every load and store misses, and the miss
 * must cost a few instructions: the gate below is one cache line that the callbacks only
 * read (two relaxed loads and one compare for an access of up to 16 bytes; measured in
 * bench/access: 0.5-0.6 ns against 0.4-0.5 ns for an empty callback).
 *
 * Behind the gate, the page table (below: which 4 KiB pages hold a tracked byte) lets out the
 * accesses that fall between ranges; behind it, the tracked ranges are a sorted array updated in
 * place under a sequence lock: readers (the access slow path, any thread) take no lock and write
 * nothing, and retry when a writer moved the array under them. Arrays are never unmapped (a grown
 * one keeps the old, so a reader that raced with the growth reads stale but valid memory and
 * retries); owners handed to hrace__filter_add must stay valid after their removal for the same
 * reason (windows and in-flight operations are pooled, never freed while the process runs). */
#ifndef HRACE_ACCESS_FILTER_H
#define HRACE_ACCESS_FILTER_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HRACE_FILTER_SLACK 16   /* widest single access: an access may start this far before lo */

/* What a tracked range is. The access slow path dispatches on it. */
enum hrace_track_kind {
  HRACE_TRACK_WINDOW = 1,       /* local window memory: owner is its hrace_shadow_t */
  HRACE_TRACK_BUFFER = 2,       /* an in-flight RMA operation's origin / result buffer, or a
                                   peer's shared-memory segment: owner is handed to
                                   hrace__buffer_access_hook */
};

/* Hook (core/hooks.h explains the pattern): an access to [addr, addr+len) inside a
 * HRACE_TRACK_BUFFER range, from the access slow path (flags: HRACE_ACC_*, op: hrace_op label,
 * pc: the access's return address). Registered at load by the floor that adds such ranges
 * (rma/buffers.c), so it is set whenever one exists. One indirect call on a path that has
 * just searched the tracked ranges. Returns 1 when the range is idle (tracked, but nothing in
 * flight there): the floor must then call hrace__filter_touch before anything is in flight
 * there again, so that a thread may skip the range until the version changes
 * (hrace__access_slow's idle cache, thread.h). */
typedef int (*hrace_buffer_access_t)(void *owner, uintptr_t addr, uintptr_t len, uint16_t flags,
                                      uint16_t op, uint32_t atomic_class, uintptr_t pc);
extern hrace_buffer_access_t hrace__buffer_access_hook;

/* Hook: window memory [lo, hi) (a HRACE_TRACK_WINDOW range) is about to leave the filter
 * (hrace__filter_remove), and is still in it. Registered by rma/buffers.c, whose in-flight
 * buffers lying wholly in window memory have no range of their own while the window's range
 * answers for them: they get one here. Called without the filter's lock. */
typedef void (*hrace_window_leaving_t)(uintptr_t lo, uintptr_t hi);
extern hrace_window_leaving_t hrace__window_leaving_hook;

typedef struct hrace_range {
  uintptr_t lo, hi;             /* [lo, hi) */
  int kind;                     /* enum hrace_track_kind */
  void *owner;
} hrace_range_t;

/* What every access callback reads, alone in its cache line: an address misses iff
 * a - lo >= hi - lo. While the history of plain memory records (history.h: more than one thread
 * runs instrumented code), [lo, hi) is everything, so every access goes on to the out-of-line
 * part, which tests the tracked ranges' own bounds (tlo, thi; lo shifted down by the slack in
 * both). Folding the history flag into the bounds keeps the miss at two loads and a compare: a
 * third load and test cost 0.3-1 ns more per access (bench/access, loop of 8-byte stores).
 * Bounds, not a base and a span: a writer stores lo and hi one after the other, and a reader may
 * see any mix of old and new values; every such mix still covers each range live throughout
 * (each lo is at or below it, each hi at or above it), where a base with a span did not (a base
 * read before a change with the span read after it shut a live range out: test_access_filter,
 * 2 of 2 000 000 reads under load). A mix with lo above hi lets everything through, to the
 * exact check. Written only when a range comes or goes and when the history starts (under the
 * filter's mutex). */
typedef struct __attribute__((aligned(64))) hrace_gate {
  _Atomic uintptr_t lo, hi;
  _Atomic uintptr_t tlo, thi;
  _Atomic int history;
} hrace_gate_t;
extern hrace_gate_t hrace__gate;

static inline bool hrace__filter_maybe(uintptr_t a) {
  uintptr_t lo = atomic_load_explicit(&hrace__gate.lo, memory_order_relaxed);
  return a - lo < atomic_load_explicit(&hrace__gate.hi, memory_order_relaxed) - lo;
}
/* Behind the bounds, which a program's other arrays and stack locals often lie between (the
 * `win` local beside a get's stack buffer, a kernel's arrays between its window and its
 * buffers), the page table: one bit per 4 KiB page of address space, set while a page holds a
 * tracked byte or one of the HRACE_FILTER_SLACK bytes before a range, in a leaf bitmap per GiB
 * (32 KiB, made on the first range there and kept) under a top-level table of the 2^17 GiB of a
 * 47-bit address space (higher addresses alias lower ones: a bit of another page answers for
 * them, which can only send an access on to the exact search). Two dependent loads and a bit
 * test; an access whose page has no bit set meets no tracked range. Writers (under the
 * filter's mutex) set a range's bits before the range enters the array and clear them after it
 * left, only where no remaining range keeps them: every mix of old and new words a reader sees
 * covers each range live throughout, as the bounds do. */
#define HRACE_FILTER_PAGE_BITS 12
#define HRACE_FILTER_LEAF_BITS 30
#define HRACE_FILTER_TOP (1u << 17)
typedef struct hrace_page_leaf {
  _Atomic uint64_t w[1u << (HRACE_FILTER_LEAF_BITS - HRACE_FILTER_PAGE_BITS - 6)];
} hrace_page_leaf_t;
extern _Atomic(hrace_page_leaf_t *) hrace__filter_pages[HRACE_FILTER_TOP];

/* May an access starting at a (of at most HRACE_FILTER_SLACK bytes) meet a tracked range? */
static inline bool hrace__filter_page(uintptr_t a) {
  const hrace_page_leaf_t *l = atomic_load_explicit(
      &hrace__filter_pages[(a >> HRACE_FILTER_LEAF_BITS) & (HRACE_FILTER_TOP - 1)],
      memory_order_acquire);
  if (!l) return false;
  uint64_t w = atomic_load_explicit(
      &l->w[(a >> (HRACE_FILTER_PAGE_BITS + 6)) &
            ((1u << (HRACE_FILTER_LEAF_BITS - HRACE_FILTER_PAGE_BITS - 6)) - 1)],
      memory_order_relaxed);
  return (w >> ((a >> HRACE_FILTER_PAGE_BITS) & 63)) & 1;
}
/* The same for [a, a+len), len >= 1: a tracked byte in it lies on its first or last page when
 * it spans at most two; wider accesses answer yes. */
static inline bool hrace__filter_page_range(uintptr_t a, size_t len) {
  uintptr_t b = a + len - 1;
  if (b < a || (b >> HRACE_FILTER_PAGE_BITS) - (a >> HRACE_FILTER_PAGE_BITS) > 1) return true;
  return hrace__filter_page(a) || hrace__filter_page(b);
}

/* For accesses of arbitrary length (memcpy, range accesses): does [a, a+len) meet the bounds? */
static inline bool hrace__filter_maybe_range(uintptr_t a, size_t len) {
  uintptr_t lo = atomic_load_explicit(&hrace__gate.lo, memory_order_relaxed);
  uintptr_t span = atomic_load_explicit(&hrace__gate.hi, memory_order_relaxed) - lo;
  return a - lo < span || (a < lo && a + len > lo);
}
/* The same against the tracked ranges' bounds only (after the gate let an access through). */
static inline bool hrace__filter_tracked(uintptr_t a, size_t len) {
  uintptr_t lo = atomic_load_explicit(&hrace__gate.tlo, memory_order_relaxed);
  uintptr_t span = atomic_load_explicit(&hrace__gate.thi, memory_order_relaxed) - lo;
  return a - lo < span || (a < lo && a + len > lo);
}
static inline bool hrace__filter_history(void) {
  return atomic_load_explicit(&hrace__gate.history, memory_order_relaxed);
}
/* Start recording the history (once; from the second thread that runs instrumented code). */
void hrace__filter_history_on(void);

/* The version of the tracked ranges: changes (by two) with every add and remove, odd while one
 * is under way. A range found under an even version is still exactly what find would return
 * while the version stays the same (the access slow path caches it per thread). */
extern _Atomic unsigned hrace__filter_seq;

/* The tracked ranges that share a byte with [a, a+len), copied into out[0..max) in address
 * order. Returns how many there are (may exceed max: call again with a larger array).
 * Lock-free; a consistent snapshot of one moment. */
unsigned hrace__filter_find(uintptr_t a, size_t len, hrace_range_t *out, unsigned max);
bool hrace__filter_overlaps(uintptr_t a, size_t len);
/* The gap around address a: the largest [*lo, *hi) holding a and no byte of any tracked range,
 * and the version it was found under (*seq, even). False when a is inside a range. */
bool hrace__filter_gap(uintptr_t a, uintptr_t *lo, uintptr_t *hi, unsigned *seq);
/* The part of range r (as find returned it) around [a, a+len) that no other tracked range
 * meets: the largest [*lo, *hi) inside r holding [a, a+len) and no byte of another range, and
 * the version it was found under (*seq, even). False when [a, a+len) meets another range too,
 * or r is gone. A window with origin buffers inside it (puts from window memory: their regions
 * stay tracked a while after completion, rma/buffers.c) is alone nowhere as a whole, but mostly
 * alone between them. */
bool hrace__filter_alone(const hrace_range_t *r, uintptr_t a, size_t len, uintptr_t *lo,
                         uintptr_t *hi, unsigned *seq);

void hrace__filter_add(uintptr_t lo, uintptr_t hi, int kind, void *owner);
/* A new version with the ranges unchanged: every thread's caches of ranges, gaps and idle
 * buffers (thread.h) miss once. For a buffer range that leaves its idle state (above). */
void hrace__filter_touch(void);
/* Every range of that owner; hrace__window_leaving_hook first for each window range. */
void hrace__filter_remove(void *owner);
/* Every range of `kind` whose owner `gone(owner)` says is gone, in one pass: completing an
 * epoch of many operations untracks their buffers in O(ranges), not O(ranges) each. */
void hrace__filter_remove_if(int kind, int (*gone)(void *owner));
#endif
