/* MPI-4 partitioned communication (MPI-4.0 Sec. 4): MPI_Psend_init / MPI_Precv_init make a
 * persistent request pair; each MPI_Start begins a round in which the sender hands partitions
 * to MPI with MPI_Pready(_range, _list) and the receiver may test them with MPI_Parrived.
 * A round is a request state of kind COLL, ckind PART (reqtab.h), so the completion wrappers
 * finish it as they finish a non-blocking collective: wait for its clock message, join.
 *
 *   event                   sender (Psend)                         receiver (Precv)
 *   Start                   nothing in flight yet                  buffer in flight (written);
 *                                                                  Irecv of the sender's clock
 *   Pready(i)               partition i in flight (read); the      -
 *                           caller's clock joins the round's, tick
 *   last partition ready    Isend of the joined clock              -
 *   Parrived(i) flag = 1    -                                      partition i leaves flight
 *   completion              buffers done                           join the clock, buffers done
 *
 * The clock sent is the join of every Pready's caller (threads may ready partitions
 * concurrently, MPI-4.0 Sec. 4.2.2), sent when the last partition is ready: the receiver's
 * completion follows every Pready, and waits for nothing the sender does after them (its own
 * Wait may come later: waiting for it could deadlock). Parrived joins nothing: the clock
 * arrives only with the last partition (an access to an arrived partition is ordered by it
 * in real time; what the sender did before readying it is joined at completion).
 *
 * The clock message travels on the communicator's shadow, below coll.c's and p2p.c's tags
 * there, with a tag made from the request's tag and its *init number*: MPI matches partitioned
 * requests of one (communicator, peer, tag) in the order they were initialised (MPI-4.0
 * Sec. 4.2.1), so the k-th MPI_Psend_init to (dest, tag) pairs with the k-th MPI_Precv_init from
 * (source, tag), and each side counts its inits per triple. Two requests of one pair that are
 * active at once and readied out of order then still get each other's clocks only if their
 * tags and init numbers collide mod 2^13 (tag + 1031 x k). Rounds of one request follow each
 * other, so they are matched in order.
 *
 * In-flight bytes are one buffer-tracking handle (request.h) per round, re-made when the set
 * changes (the runs of ready / not yet arrived partitions are its pieces), so that any
 * completion, MPI_Request_get_status included, releases them as for every other request.
 * Above MAX_PARTS partitions nothing is tracked (the re-making would cost too much). */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/map.h"
#include "core/hb.h"
#include "mpi/frame.h"
#include "mpi/handlers.h"
#include "mpi/reqtab.h"

#if MPI_VERSION >= 4
#define PART_TAG0 0x4000
#define MAX_PARTS 4096

typedef struct part {
  int send;                    /* Psend_init (else Precv_init) */
  int stag;                    /* the clock message's tag on the shadow */
  int partitions;
  MPI_Count count;             /* elements per partition */
  MPI_Datatype type;
  const char *buf;
  MPI_Aint stride;             /* bytes from one partition to the next */
  int ready;                   /* sender: partitions readied this round */
  hrace_clk_t *acc;            /* sender: the join of the Preadys' clocks, clock_len entries,
                                  in the same allocation (the state frees it as its frame) */
  unsigned char flag[];        /* per partition: readied / arrived this round */
} part_t;

/* Rounds of different requests touch disjoint states; Pready / Parrived of one request may
 * come from several threads at once. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Inits made per (communicator, peer, tag, side): matched requests have equal numbers. */
typedef struct inits {
  const hrace_comm_t *rec;
  int peer, tag, send;
  unsigned n;
} inits_t;
static hrace_map_t init_counts = HRACE_MAP_INIT;   /* under mu */

static bool same_triple(const void *val, const void *arg) {
  const inits_t *a = val, *b = arg;
  return a->rec == b->rec && a->peer == b->peer && a->tag == b->tag && a->send == b->send;
}

/* The shadow tag of the next request initialised on (rec, peer, tag) by this side. */
static int next_shadow_tag(const hrace_comm_t *rec, int peer, int tag, int send) {
  inits_t key = { rec, peer, tag, send, 0 };
  uint64_t h = hrace_hash_combine(hrace_hash_combine(HRACE_HASH_SEED, (uint64_t)(uintptr_t)rec),
                                  (uint64_t)(uint32_t)peer << 32 ^ (uint32_t)tag ^ (uint64_t)send << 63);
  pthread_mutex_lock(&mu);
  inits_t *c = hrace_map_find(&init_counts, h, same_triple, &key);
  if (!c) {
    if (!(c = malloc(sizeof *c))) abort();
    *c = key;
    hrace_map_add(&init_counts, h, c);
  }
  unsigned k = c->n++;
  pthread_mutex_unlock(&mu);
  return PART_TAG0 + (int)(((unsigned)tag + 1031u * k) & 0x1fff);
}

/* The request state of a new partitioned request (after the real init call succeeded). */
static void made(int send, const void *buf, int partitions, MPI_Count count, MPI_Datatype type,
                 int peer, int tag, MPI_Comm comm, MPI_Request *req, int active, uintptr_t pc) {
  hrace_comm_t *rec = hrace__comm_of(comm);
  MPI_Aint lb, ext;
  if (!rec || *req == MPI_REQUEST_NULL || partitions <= 0 ||
      PMPI_Type_get_extent(type, &lb, &ext) != MPI_SUCCESS)
    return;
  uint32_t n = hrace__clock_len();
  size_t flags = ((size_t)partitions + sizeof(hrace_clk_t) - 1) / sizeof(hrace_clk_t) * sizeof(hrace_clk_t);
  part_t *p = calloc(1, sizeof *p + flags + (send ? n * sizeof(hrace_clk_t) : 0));
  if (!p) abort();
  p->send = send, p->partitions = partitions, p->count = count, p->type = type;
  p->stag = next_shadow_tag(rec, peer, tag, send);
  p->buf = buf, p->stride = (MPI_Aint)count * ext;
  if (send) p->acc = (hrace_clk_t *)(p->flag + flags);
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_COLL);
  s->persistent = 1;
  s->ckind = HRACE_COLL_PART;
  s->rec = rec, s->peer = peer, s->tag = tag, s->fn = send ? "MPI_Psend_init" : "MPI_Precv_init";
  s->active = active, s->pc = pc;
  s->frame = p;
  hrace__rs_put(*req, s);
}

int hrace__h_psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                        int active, uintptr_t pc) {
  int rc = PMPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm, info, request);
  if (rc == MPI_SUCCESS) made(1, buf, partitions, count, datatype, dest, tag, comm, request, active, pc);
  return rc;
}

int hrace__h_precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                        int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request,
                        int active, uintptr_t pc) {
  int rc = PMPI_Precv_init(buf, partitions, count, datatype, source, tag, comm, info, request);
  if (rc == MPI_SUCCESS) made(0, buf, partitions, count, datatype, source, tag, comm, request, active, pc);
  return rc;
}

/* Caller holds mu. Put in flight the partitions whose flag equals `want` (the sender's
 * readied ones, the receiver's not yet arrived ones), as runs, replacing the last set. */
static void track(hrace_rs_t *s, part_t *p, int want) {
  hrace__rs_buffers_done(s);
  if (p->partitions > MAX_PARTS || !p->buf || p->count <= 0) return;
  hrace_nbbuf_t stack[16], *b = stack;
  int n = 0, cap = 16;
  for (int i = 0; i < p->partitions;) {
    if ((p->flag[i] != 0) != want) { i++; continue; }
    int j = i;
    while (j < p->partitions && (p->flag[j] != 0) == want) j++;
    MPI_Count elems = p->count * (j - i);
    if (elems <= INT_MAX) {
      if (n == cap) {
        hrace_nbbuf_t *nb = malloc(2 * cap * sizeof *nb);
        if (!nb) abort();
        memcpy(nb, b, n * sizeof *nb);
        if (b != stack) free(b);
        b = nb, cap *= 2;
      }
      b[n++] = (hrace_nbbuf_t){ p->buf + i * p->stride, (int)elems, p->type, !p->send };
    }
    i = j;
  }
  if (n) s->nbbuf = hrace__nb_track(b, n, s->fn, s->pc);
  if (b != stack) free(b);
}

/* MPI_Start of a partitioned request (coll.c, hrace__coll_started). */
void hrace__part_started(hrace_rs_t *s, int active) {
  part_t *p = s->frame;
  pthread_mutex_lock(&mu);
  memset(p->flag, 0, (size_t)p->partitions);
  p->ready = 0;
  s->active = active;
  s->started = 1;
  s->nshadow = 0;
  s->done = 0;
  uint32_t n = hrace__clock_len();
  if (p->send) {
    memset(p->acc, 0, n * sizeof *p->acc);
    hrace__rs_buffers_done(s);   /* nothing is MPI's before its Pready */
  } else {
    if (active) track(s, p, 0);
    free(s->cbuf);
    s->cbuf = NULL;
    if (s->peer != MPI_PROC_NULL) {
      if (!(s->cbuf = malloc(n * sizeof *s->cbuf))) abort();
      s->cn = (int)n;
      if (PMPI_Irecv(s->cbuf, (int)n, MPI_UINT32_T, s->peer, p->stag, s->rec->shadow,
                     &s->shadow_req[0]) == MPI_SUCCESS) {
        s->nshadow = 1;
        s->done = active;   /* join at completion */
      }
    }
  }
  pthread_mutex_unlock(&mu);
}

/* Partitions [lo, hi] (or list[0..n) when list) readied by the caller. */
static void readied(MPI_Request req, int lo, int hi, const int *list, int nlist, int active) {
  if (!active) return;
  hrace_rs_t *s = hrace__rs_get(req);
  if (!s || s->kind != HRACE_RS_COLL || s->ckind != HRACE_COLL_PART || !s->started) return;
  part_t *p = s->frame;
  if (!p->send) return;
  uint32_t n = hrace__clock_len();
  hrace_clk_t stackv[256], *v = n <= 256 ? stackv : malloc(n * sizeof *v);
  if (!v) abort();
  hrace__clock_out(v);
  pthread_mutex_lock(&mu);
  for (uint32_t i = 0; i < n; i++)
    if (v[i] > p->acc[i]) p->acc[i] = v[i];
  int k = list ? nlist : hi - lo + 1;
  for (int i = 0; i < k; i++) {
    int part = list ? list[i] : lo + i;
    if (part < 0 || part >= p->partitions || p->flag[part]) continue;   /* MPI says: erroneous */
    p->flag[part] = 1;
    p->ready++;
  }
  track(s, p, 1);
  if (p->ready == p->partitions && s->peer != MPI_PROC_NULL && s->nshadow == 0 &&
      PMPI_Isend(p->acc, (int)n, MPI_UINT32_T, s->peer, p->stag, s->rec->shadow,
                 &s->shadow_req[0]) == MPI_SUCCESS)
    s->nshadow = 1;
  pthread_mutex_unlock(&mu);
  hrace__signal_done("MPI_Pready");
  if (v != stackv) free(v);
}

int hrace__h_pready(int partition, MPI_Request req, int active) {
  int rc = PMPI_Pready(partition, req);
  if (rc == MPI_SUCCESS) readied(req, partition, partition, NULL, 0, active);
  return rc;
}

int hrace__h_pready_range(int lo, int hi, MPI_Request req, int active) {
  int rc = PMPI_Pready_range(lo, hi, req);
  if (rc == MPI_SUCCESS) readied(req, lo, hi, NULL, 0, active);
  return rc;
}

int hrace__h_pready_list(int n, int list[], MPI_Request req, int active) {
  int rc = PMPI_Pready_list(n, list, req);
  if (rc == MPI_SUCCESS) readied(req, 0, -1, list, n, active);
  return rc;
}

int hrace__h_parrived(MPI_Request req, int partition, int *flag, int active) {
  int rc = PMPI_Parrived(req, partition, flag);
  if (rc != MPI_SUCCESS || !*flag || !active) return rc;
  hrace_rs_t *s = hrace__rs_get(req);
  if (!s || s->kind != HRACE_RS_COLL || s->ckind != HRACE_COLL_PART || !s->started) return rc;
  part_t *p = s->frame;
  pthread_mutex_lock(&mu);
  if (!p->send && partition >= 0 && partition < p->partitions && !p->flag[partition]) {
    p->flag[partition] = 1;
    track(s, p, 0);
  }
  pthread_mutex_unlock(&mu);
  return rc;
}
#endif
