/* The history of plain memory: which thread recently read or wrote which bytes, so that an RMA
 * operation issued now can be checked against accesses that came *before* it in real time
 * without being ordered before it (docs/access.md, "Origin buffers touched before the issue:
 * the history"; the race of `thread 1: buf[i] = x;  thread 0: MPI_Put(buf, ...)` with no
 * synchronisation between them).
 * An operation's buffer is a tracked range only from its issue on (src/rma/buffers.c); this is
 * the part before. docs/access.md has the design, its guarantees and its measured cost.
 *
 * One direct-mapped table per thread, written only by its thread (no shared write, no lock):
 * 2^HRACE_HIST_BITS cells, one per 64-byte line of memory (the line address picks the cell),
 * each holding for that line the bytes written and the bytes read in the thread's current
 * segment, and the access descriptor of the first write and of the first read there (its
 * thread, clock stamp, code address and stack: what the race check and the report need).
 * Other threads read the cells at issue time under a per-cell sequence number.
 *
 * Recording is on only while more than one thread runs instrumented code (hrace__gate.history):
 * a single-threaded process pays one more relaxed load per access. With it on, an access that
 * repeats what its cell already says (same line, same segment, bytes already covered) costs
 * a few loads from the thread's own table; the first access to a line in a segment writes
 * the cell. */
#ifndef HRACE_ACCESS_HISTORY_H
#define HRACE_ACCESS_HISTORY_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "access/filter.h"
#include "access/thread.h"
#include "clocks/access.h"
#include "clocks/shadow.h"

#define HRACE_HIST_BITS 15        /* 32768 cells of 64 bytes: 2 MiB per thread, 2 MiB reach */
#define HRACE_HIST_CELLS (1u << HRACE_HIST_BITS)
#define HRACE_HIST_LINE 6         /* log2 of the bytes one cell covers */

typedef struct hrace_hcell {
  _Atomic uint32_t ver;           /* odd while the owner rewrites the cell */
  uint32_t unused;
  _Atomic uint64_t wseg, rseg;    /* segment of the write part / of the read part (thread.h) */
  _Atomic uint64_t tag;           /* line address (addr >> HRACE_HIST_LINE); 0: empty */
  _Atomic uint64_t wmask, rmask;  /* bytes of the line written / read in those segments */
  _Atomic uint32_t waid, raid;    /* descriptor of the first write / read there */
  uint64_t pad;
} hrace_hcell_t;
_Static_assert(sizeof(hrace_hcell_t) == 64, "one history cell per cache line");

typedef struct hrace_hist {
  hrace_hcell_t cell[HRACE_HIST_CELLS];
} hrace_hist_t;

/* Record an access that the bytes it covers are not already recorded for (cold). */
void hrace__history_note(uintptr_t a, size_t n, uint16_t flags, uint16_t op, uintptr_t pc);

/* Record one access of the calling thread, if recording is on (the callbacks' fast path; n is
 * a constant there, so the mask folds). */
__attribute__((always_inline)) static inline void hrace__history_access(uintptr_t a, unsigned n, uint16_t flags, uint16_t op,
                                         uintptr_t pc) {
  if (__builtin_expect(!hrace__filter_history(), 1)) return;
  const hrace_hist_t *h = hrace__at.hist;
  /* No table and no MPI: hrace__history_note would return at once (full mode turns the gate's
   * history flag on in OpenMP programs without MPI; the call cost 28 instructions per access). */
  if (h == NULL && !hrace__proc.mpi_ready) return;
  unsigned off = (unsigned)(a & ((1u << HRACE_HIST_LINE) - 1));
  if (__builtin_expect(h != NULL && off + n <= (1u << HRACE_HIST_LINE), 1)) {
    uint64_t line = a >> HRACE_HIST_LINE;
    const hrace_hcell_t *c = &h->cell[line & (HRACE_HIST_CELLS - 1)];
    uint64_t m = (n >= 64 ? ~0ull : (1ull << n) - 1) << off;
    if (atomic_load_explicit(&c->tag, memory_order_relaxed) == line) {
      uint64_t seg = hrace__athread_segment(&hrace__at);
      if (flags & HRACE_ACC_WRITE) {
        if (atomic_load_explicit(&c->wseg, memory_order_relaxed) == seg &&
            (atomic_load_explicit(&c->wmask, memory_order_relaxed) & m) == m)
          return;
      } else if (atomic_load_explicit(&c->rseg, memory_order_relaxed) == seg &&
                 (atomic_load_explicit(&c->rmask, memory_order_relaxed) & m) == m) {
        return;
      }
    }
  }
  hrace__history_note(a, n, flags, op, pc);
}

/* Check an RMA operation issued now by the calling thread against the history: `op` is its
 * descriptor (flags: HRACE_ACC_READ for a buffer the operation reads, HRACE_ACC_WRITE for one
 * it writes), ranges[2i] / ranges[2i+1] the absolute address and length of each piece of the
 * buffer, `view` the issuing thread's clock (hrace__thread_view()). Every recorded access of
 * any thread that conflicts with the operation and did not happen before `view` is reported
 * once through sink(ctx, op, access, first byte's address, length). Call it after the buffer
 * became a tracked range (filter.h), so that an access racing with the issue itself is seen by
 * one of the two. */
void hrace__history_check(const uint64_t *ranges, uint32_t nranges, hrace_aid_t op,
                          const hrace_vc_t *view, hrace_race_sink_t sink, void *ctx);

/* A sink for hrace__history_check that reports an "origin-buffer" race (ctx: the shadow of the
 * operation's window, named through core/hooks.h's hrace__segment_label_hook; may be NULL). */
void hrace__history_report(void *ctx, hrace_aid_t op, hrace_aid_t access, uint64_t addr,
                           uint64_t len);

/* Record [a, a+n) as accessed by descriptor `aid` in segment `seg` in the calling thread's
 * table, whatever the gate says (tests; and callers that made the descriptor themselves). */
void hrace__history_record(uintptr_t a, size_t n, int writes, hrace_aid_t aid, uint64_t seg);

/* The descriptor sweep's walk of the history (clocks/access.h), at its safe point: marks every
 * id a history table holds. */
void hrace__history_mark(void);
#endif
