/* The access filter: which addresses hrace tracks (local window memory, in-flight RMA
 * buffers). Almost every load and store misses, and the miss must cost a few
 * instructions: two relaxed loads of globals and one compare. The tracked ranges are an
 * immutable sorted array replaced as a whole (copy on write) when a window comes or goes,
 * so readers take no lock and write nothing. */
#ifndef HRACE_ACCESS_FILTER_H
#define HRACE_ACCESS_FILTER_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HRACE_FILTER_SLACK 16   /* widest single access: an access may start this far before lo */

/* What a tracked range is. The access slow path dispatches on it. */
enum hrace_track_kind {
  HRACE_TRACK_WINDOW = 1,       /* local window memory: owner is the hrace_win_t */
  HRACE_TRACK_BUFFER = 2,       /* an in-flight RMA operation's origin / result buffer: owner
                                   is handed to hrace__buffer_access (src/rma/buffers.h) */
};

typedef struct hrace_range {
  uintptr_t lo, hi;             /* [lo, hi) */
  int kind;                     /* enum hrace_track_kind */
  void *owner;
} hrace_range_t;

typedef struct hrace_ranges {
  unsigned n;
  hrace_range_t r[];
} hrace_ranges_t;

/* Bounds of everything tracked, shifted by the slack: miss iff addr - lo >= span. */
extern _Atomic uintptr_t hrace__filter_lo, hrace__filter_span;
extern _Atomic(hrace_ranges_t *) hrace__filter_ranges;

static inline bool hrace__filter_maybe(uintptr_t a) {
  return a - atomic_load_explicit(&hrace__filter_lo, memory_order_relaxed) <
         atomic_load_explicit(&hrace__filter_span, memory_order_relaxed);
}
/* For accesses of arbitrary length (memcpy, range accesses). */
bool hrace__filter_overlaps(uintptr_t a, size_t len);

void hrace__filter_add(uintptr_t lo, uintptr_t hi, int kind, void *owner);
void hrace__filter_remove(void *owner);
#endif
