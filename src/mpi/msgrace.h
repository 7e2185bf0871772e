/* Message races (docs/mpi.md, "Message races"): a wildcard receive r matched a message from
 * one sender while a message m from another sender, not ordered after r, could have matched it
 * instead. m is "late" for r when r's match did not happen before m's send: r's epoch (ex, ec)
 * is not covered by m's clock. r's epoch is fixed when r is known to have matched: at its own
 * completion, or earlier, when a receive posted after it completes with a message r could
 * also have taken (non-overtaking, MPI-3.1 Sec. 3.5: r matched first). Communicators on which no
 * wildcard receive was ever posted skip all of this (one flag test per receive). */
#ifndef HRACE_MPI_MSGRACE_H
#define HRACE_MPI_MSGRACE_H
#include <stdint.h>
#include "mpi/comm.h"
#include "mpi/frame.h"

struct hrace_post;
/* At the completion of receive p (caller holds hrace__post_mu), from world rank src with tag. */
void hrace__mrace_received(struct hrace_post *p, const hrace_hdr_t *h, int src_world, int tag);
void hrace__mrace_free(hrace_comm_t *rec);

/* Code addresses across processes: the offset into the main executable (same binary at every
 * rank, different load address) as 32 bits with the top bit set; 0 when outside it (or
 * beyond 2 GiB into it). */
uint32_t hrace__site_encode(uintptr_t pc);
uintptr_t hrace__site_decode(uint64_t site);
#endif
