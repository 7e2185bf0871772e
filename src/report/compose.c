/* Composing a race's sides (see compose.h). */
#include "report/compose.h"

#include <stddef.h>

void hrace__report_side(hrace_report_side_t *s, const char *op, int rank, int thread,
                        uint64_t off, uint64_t len, const hrace_srcloc_t *loc, uintptr_t pc) {
  s->op = op;
  s->rank = rank;
  s->thread = thread;
  s->offset = off;
  s->size = len;
  s->nframes = 0;
  s->sync = NULL;
  if (loc) s->loc = *loc;
  else hrace__symbolize(pc, &s->loc);
}
