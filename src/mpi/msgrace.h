/* Message races (docs/mpi.md, "Message races"): a wildcard receive r matched a message from
 * one sender while a message m from another sender, not ordered after r, could have matched it
 * instead. m is "late" for r when r's match did not happen before m's send: r's epoch (ex, ec)
 * is not covered by m's clock. r's epoch is fixed when r is known to have matched: at its own
 * completion, or earlier, when a receive posted after it completes with a message r could
 * also have taken (non-overtaking, MPI-3.1 Sec. 3.5: r matched first). Communicators on which no
 * wildcard receive was ever posted skip all of this (one flag test per receive). */
#ifndef HRACE_MPI_MSGRACE_H
#define HRACE_MPI_MSGRACE_H
#include <stddef.h>
#include <stdint.h>
#include "mpi/comm.h"
#include "mpi/frame.h"

struct hrace_post;
/* At the completion of receive p (caller holds hrace__post_mu), from world rank src with tag. */
void hrace__mrace_received(struct hrace_post *p, const hrace_hdr_t *h, int src_world, int tag);
void hrace__mrace_free(hrace_comm_t *rec);

/* Races found while the caller held hrace__post_mu wait on the finding thread until it has let
 * go of the lock: naming a side may ask its sender's progress thread (below), whose reply this
 * process's own progress thread must be free to take in. Non-NULL when some are waiting; then
 * hrace__mrace_flush reports them (no lock held). */
extern __thread void *hrace__mrace_pending __attribute__((tls_model("initial-exec")));
void hrace__mrace_flush(void);

/* ---- sites: which send a frame came from (hrace_hdr_t.site) ----
 * A send's site names its caller chain: the id of the sender's call stack in the sender's own
 * stack table (core/stack.h: the send's code address, then the return addresses of the calls
 * that led to it), top bit clear. The id means nothing elsewhere, so a receiver that reports a
 * message race asks the sender's progress thread once per (sender, id) for the frames
 * (hrace__mrace_on_query) and the name of the MPI call that sent from it (fn, kept per id the
 * first time a thread sends from that chain); a send pays only for the id, which a per-thread
 * cache of the last chains answers without hashing. When no id can be had (index crowded),
 * the site is the code address as an offset into the main executable (same binary at every
 * rank, different load address), top bit set, which the receiver resolves itself (the call
 * then reads "send"); 0 when neither is known. */
#define HRACE_SITE_PC 0x80000000u
uint32_t hrace__send_site(uintptr_t pc, const char *fn);
uint32_t hrace__site_encode(uintptr_t pc);
uintptr_t hrace__site_decode(uint64_t site);
/* The progress thread's handler of a site query (core/chan.h, HRACE_CHAN_SITEQ) from rank src:
 * it answers with the site's frames, packed (core/race.h, hrace__site_pack). */
void hrace__mrace_on_query(const void *buf, size_t bytes, int src);
#endif
