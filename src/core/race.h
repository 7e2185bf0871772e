/* From a conflicting pair found in the shadow to a report: which kind of race, both sides
 * resolved to source locations, window and byte range. */
#ifndef HRACE_CORE_RACE_H
#define HRACE_CORE_RACE_H
#include <stdint.h>
#include "clocks/access.h"
#include "report/symbolize.h"

/* hrace_race_sink_t for window shadows: ctx is the hrace_win_t. */
void hrace__race_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len);
/* A source location that arrived from another rank, interned for the life of the process. */
const hrace_srcloc_t *hrace__site_intern(const char *func, const char *file, int line);
#endif
