/* From a conflicting pair found in the shadow to a report: which kind of race, both sides
 * resolved to source locations and short stacks, window, byte range, the variable or
 * allocation, each side's synchronisation region, and a hint naming what was missing. */
#ifndef HRACE_CORE_RACE_H
#define HRACE_CORE_RACE_H
#include <stdint.h>
#include "clocks/access.h"
#include "report/report.h"
#include "report/symbolize.h"

/* hrace_race_sink_t for window shadows: ctx is the hrace_win_t (segment). */
void hrace__race_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len);

/* A source location that arrived from another rank, interned for the life of the process.
 * Every remote descriptor's `loc` comes from here (race.c relies on it to find the frames). */
const hrace_srcloc_t *hrace__site_intern(const char *func, const char *file, int line);
/* The same with the origin's short stack (innermost first; frames[0] is the location). */
const hrace_srcloc_t *hrace__site_intern_frames(const hrace_frame_t *frames, unsigned n);

/* What the layers tell the report about synchronisation, when they know it (all optional;
 * a report without them says less, not something wrong):
 *  - hrace__race_note_epoch: exporter x's epoch c began at a synchronisation event `what`
 *    (a constant string such as "MPI_Barrier") made at code address ret (0: unknown). Local
 *    accesses stamped (x, c) then show "after MPI_Barrier at a.c:30" as their region.
 *  - hrace__race_note_op: the remote operation `aid` was issued in region `sync` (a string the
 *    caller keeps alive, e.g. "exclusive lock epoch on rank 1 (MPI_Win_lock at a.c:20)"); and
 *    when known, `completed_at` is the call that completed it (MPI_Win_unlock at a.c:57), which
 *    the hint then names. Either may be NULL; a second call fills what the first left out. */
void hrace__race_note_epoch(uint32_t exporter, hrace_clk_t c, const char *what, uintptr_t ret);
void hrace__race_note_op(hrace_aid_t aid, const char *sync, const hrace_srcloc_t *completed_at);

/* For reports built outside the shadow (origin buffers, message buffers): fill side s's short
 * stack from access descriptor fields (stack id, return address), the variable or allocation
 * holding `addr`, then report. */
void hrace__race_side_frames(hrace_report_side_t *s, uint32_t stack, uintptr_t pc);
void hrace__race_report(hrace_report_t *r, uintptr_t addr);
#endif
