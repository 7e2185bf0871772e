/* RMA operations: the real call, then one record to the target (see rma.h). */
#include "rma/rma.h"

#include <stdlib.h>
#include "core/runtime.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "report/symbolize.h"
#include "rma/protocol.h"
#include "rma/type.h"

static int in_epoch(const hrace_win_t *w, int target) {
  return w->fence_epoch || w->lock_all || w->lock[target] != HRACE_LOCK_NONE;
}

uint32_t hrace__rma_atomic_class(MPI_Datatype dt) {
  /* The class must be equal at every origin: handles are addresses in Open MPI and differ
   * between processes, names of predefined types don't. Hash the name (FNV-1a). For a
   * derived target datatype, the accumulate's unit is its predefined element type; resolving
   * that is part of issue 3, until then the derived type's own name stands for it. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  if (PMPI_Type_get_name(dt, name, &len) != MPI_SUCCESS) len = 0;
  uint32_t h = 2166136261u;
  for (int i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
  return h ? h : 1;
}

void hrace__rma_issue(hrace_win_t *w, unsigned op, uint16_t flags, uint32_t atomic_class,
                      int target, MPI_Aint disp, int count, MPI_Datatype dt, uintptr_t pc) {
  if (target == MPI_PROC_NULL) return;
  if (target < 0 || target >= w->gsize) {
    hrace__report_misuse(pc, "%s to rank %d, which is not in the group of window %s (size %d)",
                         hrace__op_name(op), target, w->name, w->gsize);
    return;
  }
  if (!in_epoch(w, target))
    hrace__report_misuse(pc, "%s to rank %d outside an access epoch on window %s (no lock, "
                         "lock_all or fence opened one)", hrace__op_name(op), target, w->name);
  uint64_t *ranges;
  uint32_t n;
  if (hrace__type_ranges(dt, count, &ranges, &n) != MPI_SUCCESS) return;
  hrace_srcloc_t loc;
  hrace__symbolize(pc, &loc);
  hrace_msg_t h = {
    .type = HRACE_MSG_OP, .win = w->id, .origin = hrace__proc.rank, .thread = hrace__thread()->tid,
    .op = (uint16_t)op, .flags = flags | HRACE_ACC_REMOTE, .atomic_class = atomic_class,
    .nranges = n, .line = loc.line, .disp = (uint64_t)disp,
  };
  /* The record carries the issue clock: a target access ordered before it is not a race. */
  hrace__ctl_send(hrace__win_world(w, target), &h, ranges, hrace__signal_clock(), loc.func, loc.file);
  w->dirty[target] = 1;
  free(ranges);
}

#define ISSUE(w, op, flags, cls, target, disp, count, dt)                                  \
  do {                                                                                     \
    if (HRACE_ACTIVE() && rc == MPI_SUCCESS) {                                             \
      hrace_win_t *w_ = hrace__win_of(w);                                                  \
      if (w_) hrace__rma_issue(w_, op, flags, cls, target, disp, count, dt, HRACE_RET_ADDR()); \
    }                                                                                      \
  } while (0)

HRACE_EXPORT int MPI_Put(const void *oaddr, int ocount, MPI_Datatype odt, int target,
                         MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Put(oaddr, ocount, odt, target, disp, tcount, tdt, win);
  ISSUE(win, HRACE_OP_PUT, HRACE_ACC_WRITE, 0, target, disp, tcount, tdt);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Get(void *oaddr, int ocount, MPI_Datatype odt, int target,
                         MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Get(oaddr, ocount, odt, target, disp, tcount, tdt, win);
  ISSUE(win, HRACE_OP_GET, HRACE_ACC_READ, 0, target, disp, tcount, tdt);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Accumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target,
                                MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Op mop,
                                MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Accumulate(oaddr, ocount, odt, target, disp, tcount, tdt, mop, win);
  ISSUE(win, HRACE_OP_ACC, HRACE_ACC_READ | HRACE_ACC_WRITE | HRACE_ACC_ATOMIC,
        hrace__rma_atomic_class(tdt), target, disp, tcount, tdt);
  HRACE_LEAVE();
  return rc;
}
