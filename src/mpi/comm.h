/* Communicators as hrace sees them: group sizes, ranks translated to world ranks, the shadow
 * communicator for clock exchanges, an id agreed by all members, and the message-race state.
 * A record is made when the communicator is made (every constructor is wrapped), so shadows
 * are created collectively at a point every member passes, never lazily. */
#ifndef HRACE_MPI_COMM_H
#define HRACE_MPI_COMM_H
#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "clocks/vc.h"

struct hrace_mrace;

/* Requests of one non-blocking clock exchange of a collective: one collective on the shadow,
 * or the point-to-point form on communicators of at most HRACE_XCHG_P2P members (coll.c). */
#define HRACE_XCHG_P2P 8
#define HRACE_XREQ_MAX (2 * (HRACE_XCHG_P2P - 1))

typedef struct hrace_comm {
  MPI_Comm comm;             /* the application's handle */
  MPI_Comm shadow;           /* dup: collective clock exchanges */
  uint32_t id;               /* equal at every member, unique among this process's live comms */
  int rank, size;            /* in the local group */
  int inter, rsize;          /* intercommunicator: remote group size */
  int *world;                /* local group rank -> world rank */
  int *rworld;               /* remote group rank -> world rank (intercommunicators) */
  int nout;                  /* world ranks outside the group (intracomms): the sparse exchange */
  int *out;                  /*   carries their entries (docs/mpi.md, "Collectives") */
  uint32_t nidup;            /* MPI_Comm_idup calls on this communicator (idup ids) */
  _Atomic int wild;          /* a wildcard receive was posted here: check message races */
  struct hrace_mrace *mr;    /* message-race state (msgrace.c), under its lock */
} hrace_comm_t;

/* The record of an application communicator, or NULL if hrace does not know it (an invalid
 * handle: the caller then leaves the call to MPI, which reports the error). Each thread keeps
 * its last hit, valid while the table's generation is unchanged: the check is inline (two
 * per message; as a call it cost 27 instructions), the lookup is not. */
typedef struct { MPI_Comm c; struct hrace_comm *rec; unsigned gen; } hrace_comm_last_t;
extern __thread hrace_comm_last_t hrace__comm_last __attribute__((tls_model("initial-exec")));
extern _Atomic unsigned hrace__comm_gen;
hrace_comm_t *hrace__comm_of_slow(MPI_Comm c);
static inline hrace_comm_t *hrace__comm_of(MPI_Comm c) {
  unsigned g = atomic_load_explicit(&hrace__comm_gen, memory_order_acquire);
  if (__builtin_expect(hrace__comm_last.c == c && hrace__comm_last.gen == g &&
                       hrace__comm_last.rec != NULL, 1))
    return hrace__comm_last.rec;
  return hrace__comm_of_slow(c);
}
/* World rank of `rank` as a peer of comm (the remote group of an intercommunicator). */
static inline int hrace__comm_peer_world(const hrace_comm_t *c, int rank) {
  if (rank < 0) return -1;
  if (c->inter) return rank < c->rsize ? c->rworld[rank] : -1;
  return rank < c->size ? c->world[rank] : -1;
}
static inline int hrace__comm_peers(const hrace_comm_t *c) { return c->inter ? c->rsize : c->size; }

/* MPI_Init / MPI_Finalize. */
void hrace__comm_init(void);
void hrace__comm_fini(void);
/* Register a communicator whose construction returned (collective over its members). */
/* id 0: agree on one now (collective over nc's members). */
hrace_comm_t *hrace__comm_register(MPI_Comm nc, MPI_Comm shadow, uint32_t id);
#endif
