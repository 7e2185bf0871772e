/* What the generated wrappers (gen_wrappers.py) call: one handler per event class of
 * wrappers.def. Point-to-point and collective calls arrive as role-sorted argument structs;
 * completion, persistent and buffer calls with their own arguments. Every handler runs the
 * real call itself (or the clock exchange that replaces it) and returns its error code. */
#ifndef HRACE_MPI_HANDLERS_H
#define HRACE_MPI_HANDLERS_H
#include <limits.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include "mpi/comm.h"

/* ---- point-to-point (p2p.c) ------------------------------------------------------------ */
enum hrace_p2p_kind {
  HRACE_P2P_SEND, HRACE_P2P_ISEND, HRACE_P2P_SEND_INIT, HRACE_P2P_RECV, HRACE_P2P_IRECV,
  HRACE_P2P_RECV_INIT, HRACE_P2P_MRECV, HRACE_P2P_IMRECV, HRACE_P2P_PROBE, HRACE_P2P_IPROBE,
  HRACE_P2P_MPROBE, HRACE_P2P_IMPROBE,
};
enum hrace_send_mode { HRACE_MODE_STD, HRACE_MODE_B, HRACE_MODE_S, HRACE_MODE_R };

typedef struct hrace_p2p {
  const char *fn;            /* "MPI_Send", ... (clock dump labels) */
  int kind, mode;            /* enum hrace_p2p_kind, enum hrace_send_mode */
  void *buf;
  int count;
  MPI_Datatype type;
  int peer, tag;             /* dest or source (may be MPI_ANY_SOURCE / MPI_PROC_NULL), tag */
  MPI_Comm comm;
  MPI_Request *req;
  MPI_Status *status;
  MPI_Message *msg;
  int *flag;
  int active;                /* HRACE_ACTIVE(): record edges (not a nested call) */
  uintptr_t pc;              /* return address into the application */
} hrace_p2p_t;

int hrace__p2p(hrace_p2p_t *a);
int hrace__p2p_sendrecv(hrace_p2p_t *s, hrace_p2p_t *r, int replace);
/* MPI-4 (MPICH 4): MPI_Isendrecv(_replace); the large-count forms' refusal of counts that do
 * not fit a frame (a clear error, then the job is aborted: never an unframed message). */
int hrace__p2p_isendrecv(hrace_p2p_t *s, hrace_p2p_t *r, int replace, MPI_Request *req);
#define HRACE_COUNT_MAX INT_MAX
/* An MPI call hrace passes through without modelling it (MPI-4's persistent collectives,
 * partitioned communication, large-count RMA): a warning at its first use says what is lost. */
void hrace__unmodelled(const char *fn, const char *what);
int hrace__count_too_large(const char *fn, uintptr_t pc);

/* ---- requests (complete.c) --------------------------------------------------------------- */
int hrace__h_start(MPI_Request *req, int active);
int hrace__h_startall(int n, MPI_Request reqs[], int active);
int hrace__h_wait(MPI_Request *req, MPI_Status *status, int active);
int hrace__h_test(MPI_Request *req, int *flag, MPI_Status *status, int active);
int hrace__h_waitall(int n, MPI_Request reqs[], MPI_Status sts[], int active);
int hrace__h_testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[], int active);
int hrace__h_waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status, int active);
int hrace__h_testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status, int active);
int hrace__h_waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[], int active);
int hrace__h_testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[], int active);
int hrace__h_get_status(MPI_Request req, int *flag, MPI_Status *status, int active);
int hrace__h_request_free(MPI_Request *req, int active);
int hrace__h_cancel(MPI_Request *req, int active);
int hrace__h_buffer_attach(void *buf, int size, int active);
int hrace__h_buffer_detach(void *bufp, int *size, int active);

/* ---- collectives (coll.c) ---------------------------------------------------------------- */
enum hrace_coll_kind {
  HRACE_COLL_BARRIER, HRACE_COLL_ONE2ALL, HRACE_COLL_ALL2ONE, HRACE_COLL_ALL2ALL,
  HRACE_COLL_SCAN, HRACE_COLL_EXSCAN, HRACE_COLL_NEIGHBOR,
  HRACE_COLL_PART,           /* MPI-4 partitioned requests' rounds (part.c), no exchange */
};
typedef struct hrace_coll {
  hrace_comm_t *rec;         /* NULL: unknown communicator, the call passes through */
  int kind, root, active;
  const char *why;
  hrace_clk_t *snap;         /* the clock at the call's start (the signal) */
  hrace_clk_t stack[64];
  int started;               /* blocking call: the exchange runs alongside the real call */
  int layered;               /* blocking, several exporter slots: slot 0's entries first (coll.c) */
  int p2p;                   /* layered, started, point-to-point: every member's first round */
  MPI_Request xreq[HRACE_XREQ_MAX];   /* its requests (several: the point-to-point form) */
  int nx;
  hrace_clk_t *xsend, *xrecv;
  int nrecv;
} hrace_coll_t;

void hrace__coll_begin(hrace_coll_t *c, int kind, MPI_Comm comm, int root, const char *why, int active);
/* A blocking collective, before the real call: start the exchange non-blocking, so that the
 * two collectives overlap (hrace__coll_end finishes it). */
void hrace__coll_start(hrace_coll_t *c);
/* After the real call: rc is its result; req is the non-blocking call's request, or NULL. */
void hrace__coll_end(hrace_coll_t *c, int rc, MPI_Request *req);
int hrace__coll_barrier(hrace_coll_t *c);
/* After a successful MPI-4 persistent collective initialisation (MPI_Allreduce_init, ...):
 * the request's state; 1 if made (comm known), then hrace__nbc_* records its buffers. */
int hrace__coll_persistent(int kind, MPI_Comm comm, int root, const char *fn, MPI_Request *req,
                           int active, uintptr_t pc);

/* ---- MPI-4 partitioned communication (part.c) ---------------------------------------------- */
#if MPI_VERSION >= 4
int hrace__h_psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, int active, uintptr_t pc);
int hrace__h_precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, int active, uintptr_t pc);
int hrace__h_pready(int partition, MPI_Request req, int active);
int hrace__h_pready_range(int lo, int hi, MPI_Request req, int active);
int hrace__h_pready_list(int n, int list[], MPI_Request req, int active);
int hrace__h_parrived(MPI_Request req, int partition, int *flag, int active);
#endif

/* ---- communicators (comm.c) -------------------------------------------------------------- */
void hrace__comm_created(MPI_Comm nc, MPI_Comm parent);
int hrace__h_comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *req, int active);
void *hrace__comm_freeing(MPI_Comm c);
void hrace__comm_freed(void *rec, int rc);
#endif
