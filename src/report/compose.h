/* One side of a race report, composed the same way by every layer that finds races: the
 * shadow's conflicts (core/race.c), the history of plain memory (access/history.c), in-flight
 * origin buffers (rma/buffers.c) and message races (mpi/msgrace.c). */
#ifndef HRACE_REPORT_COMPOSE_H
#define HRACE_REPORT_COMPOSE_H
#include <stdint.h>
#include "report/report.h"

/* Side s of a race: operation label op ("store", "MPI_Put", ...), world rank, thread, the byte
 * range [off, off + len) relative to the report's base, and where the access was made: `loc`
 * when it was resolved elsewhere (another rank's site, an operation's issue site), else code
 * address `pc`, symbolized here (cached: a repeat costs a look-up). The short stack is left
 * empty (nframes 0) and the synchronisation region unknown (sync NULL): callers that know them
 * add them. Only what deduplication needs, so a known race can stop here
 * (hrace__report_seen). */
void hrace__report_side(hrace_report_side_t *s, const char *op, int rank, int thread,
                        uint64_t off, uint64_t len, const hrace_srcloc_t *loc, uintptr_t pc);
#endif
