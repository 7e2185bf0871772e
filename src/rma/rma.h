/* The RMA core shared by the operation, epoch, PSCW and annotation wrappers.
 *
 * An operation is an interval (docs/rma.md, "The model": issued /
 * completed states): at the target from issue to remote completion (a record in the target's
 * shadow whose epoch is fixed by the completion), at the origin from issue to local completion
 * (its buffers are tracked ranges, buffers.h). Completion is not synchronisation: it fixes
 * epochs and frees buffers, and orders nothing for other processes by itself. */
#ifndef HRACE_RMA_RMA_H
#define HRACE_RMA_RMA_H
#include <mpi.h>
#include <stdint.h>
#include "report/symbolize.h"
#include "rma/protocol.h"
#include "rma/window.h"

/* One buffer of an operation at its origin, as the call names it. */
typedef struct hrace_rma_buf {
  const void *addr;
  int count;
  MPI_Datatype dt;
  int writes;                  /* written by the operation (get, result buffers) */
} hrace_rma_buf_t;

/* One RMA call, filled by its wrapper; hrace__rma_begin / _end do the rest. */
typedef struct hrace_rma_call {
  unsigned op;                 /* hrace_op label */
  uint16_t tflags;             /* HRACE_ACC_* of the access at the target */
  int atomic;                  /* accumulate family: atomic per element of tdt's predefined type */
  int target;                  /* rank in the window's group */
  MPI_Aint disp;
  int tcount;
  MPI_Datatype tdt;
  hrace_rma_buf_t buf[3];      /* origin, compare, result: those that take part */
  int nbuf;
  MPI_Request *req;            /* request-based operations: where MPI puts the request */
  /* Filled by hrace__rma_begin. */
  hrace_win_t *w;              /* NULL: nothing to do (inactive, unknown window, PROC_NULL) */
  uint64_t *ranges;            /* target byte ranges relative to disp * disp_unit */
  uint64_t one[2];             /* ranges of a contiguous target type (no malloc, type.h) */
  uint32_t nranges;
  uintptr_t pc;
} hrace_rma_call_t;

/* Before the PMPI call: find the window, compute the target ranges, and diagnose misuse that
 * MPI may answer with an error or an abort (no epoch, rank not in the group, range outside
 * the target's window), naming the caller's line. Out-of-window bytes are dropped. */
void hrace__rma_begin(MPI_Win win, hrace_rma_call_t *c, uintptr_t pc);
/* After the PMPI call: if it succeeded, send the record to the target and track the buffers
 * until local completion; always releases what _begin allocated. */
void hrace__rma_end(hrace_rma_call_t *c, int rc);
/* Remote completion at `target` (group rank; -1: every target) of the caller's operations on
 * w: their records' epochs are fixed at the caller's current epoch, and the call returns once
 * the targets have applied that. Local completion of the same operations too. */
void hrace__rma_complete(hrace_win_t *w, int target);
/* Remote completion only: the records' epochs at the targets, not the origin's buffers
 * (an MPI_Rget whose request completed: its data has been read at the target). */
void hrace__rma_complete_remote(hrace_win_t *w, int target);
/* Local completion only (MPI_Win_flush_local*): the buffers are free again; the target side
 * stays in flight. */
void hrace__rma_complete_local(hrace_win_t *w, int target);
/* The accumulate-family atomicity class of a datatype: its predefined element type. Equal
 * classes don't race each other; C11 atomics have classes of their own (src/access). */
uint32_t hrace__rma_atomic_class(MPI_Datatype dt);
/* The class of an accumulate whose first target byte is at `offset` (window offset, or
 * address): atomicity is per element, so the element's phase is part of it. */
uint32_t hrace__rma_atomic_class_at(MPI_Datatype dt, uint64_t offset);
/* Is an access epoch open from this process to `target` on w (fence, lock, lock_all, start)? */
int hrace__rma_in_epoch(const hrace_win_t *w, int target);
/* A message to a window's member, from the calling thread. */
hrace_msg_t hrace__rma_msg(const hrace_win_t *w, uint32_t type);

/* Apply an operation record (OP message h with its ranges) to w's shadow, checked as seen
 * from `view`; the caller holds the registry lock (the progress thread, or the issuing thread
 * for an operation on itself). `site`: where the origin issued it, with its caller chain
 * (core/race.h, hrace__site_unpack / hrace__site_here). */
/* A COMPLETE applied by the completing thread itself, for its operations on its own process
 * (applied in the wrapper too, never on the channel): caller holds the registry lock. */
void hrace__rma_complete_ops(hrace_win_t *w, const hrace_msg_t *h);
void hrace__rma_apply(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                      const hrace_vc_t *view, const hrace_srcloc_t *site);

/* The process's own lock token without a message to itself, when nobody waits and (lock) it
 * is free for `type`: returns 1 (lock: the released clock joined into got), else 0 and the
 * caller sends the LOCK / UNLOCK. Caller holds the registry lock (progress.c). */
int hrace__lock_self(hrace_win_t *w, uint32_t type, hrace_vc_t *got);
int hrace__unlock_self(hrace_win_t *w, uint32_t type, const hrace_vc_t *clock);

/* Progress-thread handlers defined outside progress.c (caller holds the registry lock). */
void hrace__ctl_reply(int to, int tag, uint32_t type, const hrace_vc_t *vc);
void hrace__post_apply(hrace_win_t *w, const hrace_msg_t *h, const hrace_clk_t *vc);
void hrace__done_apply(hrace_win_t *w, const hrace_msg_t *h, const hrace_clk_t *vc, uint32_t n);
void hrace__annotate_on_psig(const hrace_msg_t *h, const hrace_clk_t *vc);
void hrace__annotate_on_rsig(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                             const hrace_clk_t *vc);
void hrace__annotate_on_rwait(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges);
/* The kind of access epoch an operation to `target` is issued in, and its label for reports
 * (the `sync` of the operation's descriptor). */
enum { HRACE_EPOCH_NONE, HRACE_EPOCH_EXCL, HRACE_EPOCH_SHARED, HRACE_EPOCH_LOCK_ALL,
       HRACE_EPOCH_PSCW, HRACE_EPOCH_FENCE };
uint32_t hrace__rma_epoch_kind(const hrace_win_t *w, int target);
const char *hrace__rma_epoch_label(uint32_t kind);
#endif
