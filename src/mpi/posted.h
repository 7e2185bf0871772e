/* Posted receives (ssend.c): every receive hrace has seen posted and not yet completed, in
 * posting order, with the poster's clock at the post. Two readers need it:
 *  - the synchronous-send responder (on the progress thread): MPI_Ssend returns once its
 *    message matched a receive, and the sender must then be ordered after everything the
 *    receiver did before posting that receive (docs/mpi.md, "Synchronous sends both ways"). The
 *    sender asks the receiver's progress thread, which answers with the clock of the
 *    matching post;
 *  - message races (msgrace.c): the late-message rule (docs/mpi.md, "Message races") needs
 *    posting order.
 * One lock (hrace__post_mu, below) guards the list, the responder's answers and the message-race
 * state. */
#ifndef HRACE_MPI_POSTED_H
#define HRACE_MPI_POSTED_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "base/list.h"
#include "clocks/vc.h"
#include "mpi/comm.h"
#include "mpi/frame.h"

typedef struct hrace_cand {              /* a message that may have matched a pending wildcard */
  int src;                               /* sender's world rank */
  uint64_t site;
  struct hrace_cand *next;
} hrace_cand_t;

typedef struct hrace_post {
  hrace_list_t link;                     /* on the list of pending posts, in posting order */
  hrace_comm_t *rec;
  uint32_t comm_id;
  int src, tag;                          /* as posted: may be MPI_ANY_SOURCE / MPI_ANY_TAG */
  uint64_t seq;                          /* posting order in this process */
  hrace_clk_t *snap;                     /* the poster's clock at the post (its signal) */
  uint32_t n;
  /* message races (msgrace.c) */
  int epoch_set;                         /* the receive is known to have matched ... */
  uint32_t ex;                           /* ... no later than epoch (ex, ec) of this process */
  hrace_clk_t ec;
  hrace_cand_t *cands;                   /* late messages seen while it was pending */
  int heap;                              /* allocated by hrace__post_add (else the caller's) */
  hrace_clk_t inl[32];                   /* snap when the clock is short enough */
} hrace_post_t;

/* The lock of the list, the responder's answers and the message-race state. Taken twice per
 * non-blocking receive (post, completion) and almost never contended (the progress thread
 * takes it only to answer a synchronous sender), so a test-and-set lock: one atomic exchange
 * to take, a release store to give back, where a mutex paid two atomic read-modify-writes per
 * pair more. A waiter spins briefly, then yields (a holder may be reporting a race). */
typedef struct { _Atomic int v; } hrace_spin_t;
extern hrace_spin_t hrace__post_mu;
void hrace__post_lock_slow(void);
static inline void hrace__post_lock(void) {
  if (__builtin_expect(!atomic_exchange_explicit(&hrace__post_mu.v, 1, memory_order_acquire), 1)) return;
  hrace__post_lock_slow();
}
static inline void hrace__post_unlock(void) {
  atomic_store_explicit(&hrace__post_mu.v, 0, memory_order_release);
}

/* At a receive's post: snapshot the clock, tick (when active), link. `mem`: storage that
 * outlives the post (a request's state, a blocking call's frame), or NULL to allocate. */
hrace_post_t *hrace__post_add(hrace_comm_t *rec, int src, int tag, int active, hrace_post_t *mem);
/* At its completion with a framed message (h NULL: cancelled, failed or not framed):
 * message races, the responder's answer for a synchronous sender, unlink and free. */
void hrace__post_done(hrace_post_t *p, const hrace_hdr_t *h, int src_rank, int tag);

/* A blocking receive's post, in a program that makes one MPI call at a time: returns 0 when
 * it must go in the list instead (hrace__post_add). Its completion: hrace__post_blocking_done
 * (h NULL: nothing framed arrived). */
int hrace__post_blocking(hrace_comm_t *rec, int src, int tag, int active);
void hrace__post_blocking_done(hrace_comm_t *rec, const hrace_hdr_t *h, int src_rank);

/* The synchronous-send side: after the send completed (not cancelled), join the receiver's
 * clock at the post of the receive that matched it. */
void hrace__ssend_fetch(hrace_comm_t *rec, int dest, int tag, uint32_t sync_id, const char *why);
uint32_t hrace__ssend_next_id(void);

/* The receiver's side: a query (from world rank src) on the progress thread. */
void hrace__ssend_on_query(const void *buf, size_t bytes, int src);
/* MPI_Finalize: drop answers nobody asked for. */
void hrace__ssend_stop(void);
#endif
