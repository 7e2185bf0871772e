/* hrace's own state of an application request, keyed by the request handle: what a
 * completion must do (unpack a framed message and join its clock, finish a collective's
 * clock exchange, register a communicator made by MPI_Comm_idup, run another layer's watch).
 * The one request table: a completion wrapper looks each completed request up once.
 *
 *   kind        made by                       at completion (Wait / Test family)
 *   SEND        Isend family, *send_init      free the frame (non-persistent); Issend: fetch
 *                                             the receiver's clock (ssend.c)
 *   RECV        Irecv, Imrecv, Recv_init      unpack, fix the status count, join the clock,
 *                                             check message races
 *   COLL        non-blocking collectives,     wait for the shadow exchange, join
 *               MPI-4 persistent ones and     (persistent: each Start begins a round)
 *               partitioned requests (PART)
 *   IDUP        MPI_Comm_idup                 finish the shadow idup, register the comm
 *   WATCH       hrace__request_watch          run the watch (request.h: request-based RMA) */
#ifndef HRACE_MPI_REQTAB_H
#define HRACE_MPI_REQTAB_H
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include "clocks/vc.h"
#include "mpi/comm.h"
#include "mpi/posted.h"
#include "mpi/request.h"

enum hrace_rs_kind { HRACE_RS_SEND = 1, HRACE_RS_RECV, HRACE_RS_COLL, HRACE_RS_IDUP, HRACE_RS_WATCH };

typedef struct hrace_rs {
  int kind;
  int persistent;            /* *_init: survives completion; `started` per activation */
  int started;
  int active;                /* edges recorded for this request (not a nested call) */
  const char *fn;
  hrace_comm_t *rec;
  /* SEND / RECV: the frame (framing.h) */
  void *buf;                 /* application buffer */
  int count;
  MPI_Datatype type;
  int peer, tag, mode;
  void *frame;               /* packed frame (small messages) or header (large), owned */
  MPI_Datatype ftype;        /* struct type {header, count x type} for large messages, or NULL */
  int fbytes;                /* bytes of the packed frame */
  uintptr_t pc;
  uint32_t sync_id;          /* SEND in synchronous mode */
  struct hrace_post *post;   /* RECV: the posted-receive record (ssend.c) */
  int done;                  /* RECV: already completed once (MPI_Request_get_status) */
  int data_bytes;            /* RECV, once done: the application's bytes (-1: nothing framed) */
  /* COLL */
  int ckind, root;
  hrace_clk_t *cbuf;         /* snapshot sent / result received */
  int cn;
  MPI_Request shadow_req[HRACE_XREQ_MAX];   /* COLL: the exchange's requests; IDUP: [0] */
  int nshadow;
  hrace_nbbuf_t *pieces;     /* persistent COLL: the buffers each Start puts in flight, owned */
  int npieces;
  /* IDUP */
  MPI_Comm *newcomm, shadow_comm;
  /* WATCH (never persistent: request-based RMA operations) */
  hrace_req_done_t watch;
  void *watch_arg;
  MPI_Request watch_req;     /* the handle as it was when watched */
  /* The application's buffers in flight (request.h, hrace__nb_track) until this request
   * completes, or NULL. Persistent requests: from each Start. */
  void *nbbuf;
  /* A handle MPI gives to several requests at once (Open MPI's isend of a message sent at
   * once returns its one ompi_request_empty to every caller): the other states under it, and
   * the thread that made this one (hrace__rs_take prefers the caller's own). */
  struct hrace_rs *same;
  const void *owner;
  /* Inline storage (no allocation for small messages), not cleared: rs_new sets every field
   * above one by one, so a new field needs its line there. */
  hrace_post_t postmem;
  char inl[256];
} hrace_rs_t;

/* The request completed (or is gone): its buffers are the application's again. */
static inline void hrace__rs_buffers_done(hrace_rs_t *s) {
  if (s->nbbuf) {
    hrace__nb_done(s->nbbuf);
    s->nbbuf = NULL;
  }
}
/* From now until completion, MPI uses buf (count x type; writes: a receive buffer). */
void hrace__rs_buffers(hrace_rs_t *s, const void *buf, int count, MPI_Datatype type, int writes);

/* Storage of n bytes for s->frame: inline when it fits. */
void *hrace__rs_frame(hrace_rs_t *s, size_t n);

hrace_rs_t *hrace__rs_new(int kind);
void hrace__rs_free(hrace_rs_t *s);
/* A new request's state. A state already under r is stale (MPI freed and reused the handle:
 * its buffers are finished), unless r is complete already: then MPI shares the handle and
 * both states stay. */
void hrace__rs_put(MPI_Request r, hrace_rs_t *s);
/* The state of a request that is still live, back under its handle (never stale). */
void hrace__rs_put_back(MPI_Request r, hrace_rs_t *s);
hrace_rs_t *hrace__rs_get(MPI_Request r);               /* NULL if none */
hrace_rs_t *hrace__rs_take(MPI_Request r);              /* remove and return */
int hrace__rs_any(void);                                /* cheap: is any state live? */
/* The same for n handles under one lock: out[i] NULL where none (or MPI_REQUEST_NULL); put_n
 * puts back like hrace__rs_put_back and skips s[i] == NULL. */
void hrace__rs_take_n(int n, const MPI_Request r[], hrace_rs_t *out[]);
void hrace__rs_put_n(int n, const MPI_Request r[], hrace_rs_t *const s[]);

/* Complete the hrace side of a request that MPI reported complete with `st` (never NULL).
 * For persistent requests the state stays (keep). Returns nothing; never fails. */
void hrace__rs_complete(hrace_rs_t *s, MPI_Status *st, int active);
/* Requests the application freed while active: hrace keeps them and finishes them later. */
void hrace__rs_orphan(MPI_Request r, hrace_rs_t *s);
void hrace__rs_poll_orphans_slow(int wait_all);
extern _Atomic int hrace__rs_norphans;
/* Inline: every send polls, and there is almost never an orphan. */
static inline void hrace__rs_poll_orphans(int wait_all) {
  if (atomic_load_explicit(&hrace__rs_norphans, memory_order_relaxed))
    hrace__rs_poll_orphans_slow(wait_all);
}

/* The class-specific steps (p2p.c, coll.c). */
void hrace__p2p_start_send(hrace_rs_t *s, int active);
void hrace__p2p_start_recv(hrace_rs_t *s, int active);
void hrace__p2p_recv_complete(hrace_rs_t *s, MPI_Status *st, int active);
void hrace__coll_complete(hrace_rs_t *s, int active);
void hrace__coll_started(hrace_rs_t *s, int active);   /* MPI_Start of a persistent collective */
void hrace__part_started(hrace_rs_t *s, int active);   /* ... of a partitioned request (part.c) */
#endif
