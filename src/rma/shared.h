/* Shared-memory windows (MPI_Win_allocate_shared): another member's segment is mapped into this
 * process, and loads and stores by this process's threads reach it directly. They are accesses
 * to the owner's memory, and the owner holds the shadow, so they are forwarded to it.
 *
 * At window creation every member maps every other member's segment (MPI_Win_shared_query) as
 * a tracked range of kind HRACE_TRACK_BUFFER whose owner is a peer (buffers.h); the access slow
 * path hands its accesses here. They are batched per owner, coalescing runs of one code
 * address, and stamped with the accessing thread's epoch. A batch is sent before any other
 * message to its owner (ordered with this process's RMA records there), before the clock
 * changes (hrace__wait: the batch carries one clock), and is applied at the owner before the
 * clock is published (hrace__signal_clock, acknowledged): the delivery invariant. docs/rma.md
 * weighs this against a shadow in shared memory. */
#ifndef HRACE_RMA_SHARED_H
#define HRACE_RMA_SHARED_H
#include <stdint.h>
#include "clocks/vc.h"
#include "rma/protocol.h"
#include "rma/window.h"

/* After the window exists on every member: map the peers' segments. */
void hrace__shared_register(hrace_win_t *w);
void hrace__shared_unregister(hrace_win_t *w);
/* The access slow path, for an access inside a peer's segment (owner: struct hrace_peer). */
void hrace__shared_access(void *peer, uintptr_t addr, uintptr_t len, uint16_t flags, uint16_t op,
                          uint32_t atomic_class, uintptr_t pc);
/* A COMPLETE message went to world rank `target` without waiting for its acknowledgement
 * (hrace__rma_complete_remote): the next publication of a clock pings the target first, so
 * the target has applied it before anything ordered after the completion can reach it. */
uint64_t hrace__shared_late_complete(int target);   /* returns the completion's mark */
/* The target (world rank) is known to have applied the completion of `mark` (a message of its
 * said so): it needs no ping for it, nor for earlier ones. */
void hrace__shared_late_applied(int target, uint64_t mark);
/* While on, the calling thread's publications send the batches but ping nobody: for a clock
 * that can order nothing at another process (MPI_Win_post's: pscw.c). */
void hrace__shared_defer_pings(int on);
/* Send what is batched for world rank `target` (before another message to it). */
void hrace__shared_flush_to(int target);
/* Progress thread at the owner: apply a FWD message to w's shadow. */
/* The descriptor sweep (rma/window.c): marks the ids of the forwarded accesses' descriptor
 * cache. Caller holds the registry lock. */
void hrace__shared_mark(void);
void hrace__shared_apply(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                         const hrace_clk_t *vc, const char *blob);
#endif
