/* The RMA core shared by the operation and epoch wrappers. */
#ifndef HRACE_RMA_RMA_H
#define HRACE_RMA_RMA_H
#include <mpi.h>
#include <stdint.h>
#include "rma/window.h"

/* An RMA operation was issued (the PMPI call succeeded): check the epoch, and send the
 * record to the target. `target` is a rank in the window's group. */
void hrace__rma_issue(hrace_win_t *w, unsigned op, uint16_t flags, uint32_t atomic_class,
                      int target, MPI_Aint disp, int count, MPI_Datatype dt, uintptr_t pc);
/* Remote completion at `target` (group rank; -1: every target with operations in flight):
 * the records' epochs are fixed at the caller's current epoch, and the call returns once the
 * targets have applied them. */
void hrace__rma_complete(hrace_win_t *w, int target);
/* The accumulate-family atomicity class of a predefined datatype: same class, no race. */
uint32_t hrace__rma_atomic_class(MPI_Datatype dt);
#endif
