/* From a conflicting pair found in the shadow to a report: which kind of race, both sides
 * resolved to source locations and short stacks, window, byte range, the variable or
 * allocation, each side's synchronisation region, and a hint naming what was missing. */
#ifndef HRACE_CORE_RACE_H
#define HRACE_CORE_RACE_H
#include <stdint.h>
#include "clocks/access.h"
#include "report/compose.h"
#include "report/report.h"
#include "report/symbolize.h"

/* hrace_race_sink_t for window shadows: ctx is the segment's hrace_shadow_t, which
 * hrace__segment_label_hook (core/hooks.h) names. */
void hrace__race_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len);
/* The same for memory outside windows (full mode, access/full.h): a pair over [addr, addr+len),
 * in the heap block [alloc_base, alloc_base+alloc_size) that `allocation` names (NULL: none
 * known; a global variable is found from the symbols). */
void hrace__race_memory(hrace_aid_t now, hrace_aid_t prev, uintptr_t addr, uint64_t len,
                        const char *allocation, uintptr_t alloc_base, uint64_t alloc_size);

/* A source location that arrived from another rank, interned for the life of the process.
 * Every remote descriptor's `loc` comes from here (race.c relies on it to find the frames). */
const hrace_srcloc_t *hrace__site_intern(const char *func, const char *file, int line);
/* The same with the origin's short stack (innermost first; frames[0] is the location). */
const hrace_srcloc_t *hrace__site_intern_frames(const hrace_frame_t *frames, unsigned n);

/* The site of a call this process makes (an RMA operation's issue): code address pc (a
 * return address into the caller) and the interned stack `stack` (core/stack.h; 0: pc only),
 * resolved to at most `stack_depth` frames and interned like the sites above; cached by stack.
 * The frames of any interned site: at most max, innermost first. */
const hrace_srcloc_t *hrace__site_here(uint32_t stack, uintptr_t pc);
unsigned hrace__site_frames(const hrace_srcloc_t *site, hrace_frame_t *out, unsigned max);
/* A site's frames as bytes for a message (owned by the site; *len bytes), and back: the
 * interned site, or NULL when the bytes are malformed. */
const void *hrace__site_pack(const hrace_srcloc_t *site, uint32_t *len);
const hrace_srcloc_t *hrace__site_unpack(const void *bytes, uint32_t len);

/* The synchronisation region of each side comes from its descriptor's `sync` label
 * (clocks/access.h): set by the runtime for local accesses, from the record for remote ones. */

/* For reports built outside the shadow (origin buffers, message buffers): fill side s's short
 * stack from access descriptor fields (stack id, return address), the variable or allocation
 * holding `addr`, then report. */
void hrace__race_side_frames(hrace_report_side_t *s, uint32_t stack, uintptr_t pc);
void hrace__race_report(hrace_report_t *r, uintptr_t addr);
#endif
