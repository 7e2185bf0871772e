/* Collectives: the real call, then the clock exchange of its class on the communicator's
 * shadow (docs/mpi.md, "Collectives"). The clock sent is the one at the call's start (the signal).
 *
 *   class     calls                                  exchange on the shadow       who joins / ticks
 *   all2all   Barrier, Allgather(v), Alltoall(v/w),  sparse all-reduce (below)    all / all
 *             Allreduce, Reduce_scatter(_block)
 *   one2all   Bcast, Scatter(v)                      Bcast of the root's clock    non-roots / root
 *   all2one   Gather(v), Reduce                      Reduce(MAX) to the root      root / non-roots
 *   scan      Scan                                   Scan(MAX): ranks 0..i        all / all
 *   exscan    Exscan                                 Exscan(MAX): ranks 0..i-1    ranks > 0 / all
 *   neighbor  Neighbor_* (all five)                  Neighbor_allgather          all / all
 *
 * Sparse all-to-all: after an all-to-all, a member's entry is known exactly by everyone (no one
 * knows more of it than the member itself), so members contribute only their own entry; the
 * entries of processes outside the group must still be max-reduced, or the members miss what
 * an outsider told one of them (docs/mpi.md, "Collectives"). On a communicator that spans every
 * process this is an Allgather of one entry per member; otherwise one Allreduce(MAX) over
 * [one slot per member | outsiders' entries]. Intercommunicators: Allreduce(MAX) of whole
 * clocks, which MPI delivers from the other group only (MPI-3.1 Sec. 5.2.3).
 *
 * Per-thread exporters (docs/mpi.md, "Per-thread exporters"): "a member's own entry" becomes the
 * entry of the exporter that makes the call; the process's other exporters join the max-reduced
 * part (own_slot() and outsiders() are the two places that change).
 *
 * Layers. With several exporter slots per process (above MPI_THREAD_FUNNELED) a clock has
 * size x slots entries, entry rank + size x slot (clocks/exporter.c): layer j holds every
 * rank's slot j. Most such programs call MPI from one thread per rank, so every layer but the
 * first is zero, and the dense exchange would carry size x slots entries for size of them.
 * Blocking all-to-all and one-to-all exchanges therefore send the first layer and, in the
 * same message, the number of layers the sender's clock needs (up to its last non-zero
 * entry); MAX-reduced or broadcast, that number is known to every member after the first
 * round, so all of them agree whether a second round carries the remaining layers (and how
 * many). Clock bytes then grow with the slots in use, as the point-to-point tail does (p2p.c).
 * On small communicators the started first round of an all-to-all is the point-to-point form
 * (exchange_p2p, every member's [layer 0 | count]), maximised locally in conclude().
 * Only blocking calls do it: every member is inside the call, so the second round waits for
 * no one busy elsewhere; a non-blocking collective's second round would start at some
 * member's Test and could wait for a member that computes. Reduce, Gather, the scans and the
 * neighbourhood collectives keep the dense form: after their first round not every member
 * knows the number of layers.
 *
 * Non-blocking collectives start the same exchange non-blocking at the call (the signal) and
 * join when the application's request completes (reqtab.h, COLL). MPI_Barrier is the exchange
 * alone: an all-to-all exchange synchronises exactly as a barrier does. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "core/chan.h"
#include "core/thread.h"
#include "mpi/frame.h"
#include "mpi/handlers.h"
#include "mpi/reqtab.h"

static uint32_t nclk(void) { return hrace__clock_len(); }

void hrace__coll_begin(hrace_coll_t *c, int kind, MPI_Comm comm, int root, const char *why, int active) {
  c->rec = hrace__comm_of(comm);
  c->kind = kind, c->root = root, c->why = why, c->active = active;
  c->snap = NULL;
  c->started = 0, c->layered = 0, c->p2p = 0;
  if (!c->rec) return;
  uint32_t n = nclk();
  c->snap = n <= 64 ? c->stack : malloc(n * sizeof *c->snap);
  if (!c->snap) abort();
  hrace__clock_out(c->snap);
}

/* Roles of this process in the exchange. */
static int joins(const hrace_coll_t *c) {
  const hrace_comm_t *r = c->rec;
  switch (c->kind) {
  case HRACE_COLL_ONE2ALL:
    return r->inter ? c->root != MPI_ROOT && c->root != MPI_PROC_NULL : r->rank != c->root;
  case HRACE_COLL_ALL2ONE: return r->inter ? c->root == MPI_ROOT : r->rank == c->root;
  case HRACE_COLL_EXSCAN: return r->rank > 0;
  default: return 1;
  }
}
static int ticks(const hrace_coll_t *c) {
  const hrace_comm_t *r = c->rec;
  switch (c->kind) {
  case HRACE_COLL_ONE2ALL: return r->inter ? c->root == MPI_ROOT : r->rank == c->root;
  case HRACE_COLL_ALL2ONE:
    return r->inter ? c->root != MPI_ROOT && c->root != MPI_PROC_NULL : r->rank != c->root;
  default: return 1;
  }
}

/* The sparse form needs "a member's own entry" to be a fixed entry per member: one exporter
 * per process (clock length == number of processes, entry == world rank). With several
 * exporters per process, a member's other exporters may be known better by someone else, and
 * the exchange falls back to the dense all-reduce. */
static int sparse(const hrace_comm_t *r) {
  return !r->inter && hrace__clock_len() == (uint32_t)hrace__proc.size;
}

/* Layers (above): a blocking all-to-all or one-to-all exchange on an intracommunicator, with
 * more than one slot per process (not sparse: the clock is size x slots entries, slots > 1). */
static int layered(const hrace_coll_t *c) {
  return !c->rec->inter && !sparse(c->rec) &&
         (c->kind == HRACE_COLL_BARRIER || c->kind == HRACE_COLL_ALL2ALL ||
          c->kind == HRACE_COLL_ONE2ALL);
}

/* Clock entries this process contributed to exchanges (a point-to-point form sends them to
 * each member), for the note at MPI_Finalize. */
static _Atomic unsigned long xchg_n, xchg_bytes;
static void count(unsigned long entries) {
  atomic_fetch_add_explicit(&xchg_bytes, 4 * entries, memory_order_relaxed);
}

void hrace__coll_counts(unsigned long *n, unsigned long *bytes) {
  *n = atomic_load(&xchg_n), *bytes = atomic_load(&xchg_bytes);
}

void hrace__coll_fini(void) {
  hrace__note("collective clock exchanges: %lu (%lu bytes contributed)", atomic_load(&xchg_n),
              atomic_load(&xchg_bytes));
}

/* The buffer the exchange sends, and how many entries it receives. */
static int in_degree(MPI_Comm comm) {
  int topo = MPI_UNDEFINED, in = 0, out = 0, w = 0, nd = 0;
  PMPI_Topo_test(comm, &topo);
  if (topo == MPI_CART) PMPI_Cartdim_get(comm, &nd), in = 2 * nd;
  else if (topo == MPI_GRAPH) {
    int rank;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &in);
  } else if (topo == MPI_DIST_GRAPH) PMPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
  return in;
}

/* Lay out what this process sends; returns the entries received into *out (allocated). */
static int layout(const hrace_coll_t *c, hrace_clk_t **send, int *nsend, int *nrecv) {
  const hrace_comm_t *r = c->rec;
  uint32_t n = nclk();
  switch (c->kind) {
  case HRACE_COLL_BARRIER: case HRACE_COLL_ALL2ALL:
    if (sparse(r)) {
      if (r->nout == 0) {                        /* own entry; Allgather */
        *nsend = 1, *nrecv = r->size;
        *send = malloc(sizeof **send);
        (*send)[0] = c->snap[hrace__thread_exporter()];
      } else {                                   /* [member slots | outsiders]; Allreduce */
        *nsend = *nrecv = r->size + r->nout;
        *send = calloc(*nsend, sizeof **send);
        (*send)[r->rank] = c->snap[hrace__thread_exporter()];
        for (int i = 0; i < r->nout; i++) (*send)[r->size + i] = c->snap[r->out[i]];
      }
      return 0;
    }
    break;
  case HRACE_COLL_NEIGHBOR:
    *nsend = (int)n, *nrecv = (int)n * in_degree(r->comm);
    *send = malloc(n * sizeof **send);
    memcpy(*send, c->snap, n * sizeof **send);
    return 0;
  default: break;
  }
  if (c->layered) {   /* [layer 0 | layers this clock needs] */
    uint32_t w = (uint32_t)hrace__proc.size, m = n;
    while (m > w && !c->snap[m - 1]) m--;
    *nsend = *nrecv = (int)w + 1;
    if (c->p2p) *nrecv = r->size * *nsend;   /* every member's, reduced here (conclude) */
    *send = malloc((w + 1) * sizeof **send);
    if (!*send) abort();
    memcpy(*send, c->snap, w * sizeof **send);
    (*send)[w] = (m + w - 1) / w;
    return 0;
  }
  *nsend = *nrecv = (int)n;
  *send = malloc(n * sizeof **send);
  memcpy(*send, c->snap, n * sizeof **send);
  return 0;
}

/* The exchange's buffers: what this process sends (layout) and room for what it receives. */
static hrace_clk_t *buffers(const hrace_coll_t *c, hrace_clk_t **send, int *nsend, int *nrecv) {
  layout(c, send, nsend, nrecv);
  atomic_fetch_add_explicit(&xchg_n, 1, memory_order_relaxed);
  if (c->kind != HRACE_COLL_ONE2ALL || !joins(c)) count((unsigned long)*nsend);   /* a root sends */
  hrace_clk_t *recv = malloc((*nrecv > *nsend ? *nrecv : *nsend) * sizeof *recv + sizeof *recv);
  if (!recv) abort();
  return recv;
}

/* The sparse all-to-all exchange on a small communicator, started: each member's entry to
 * every other member by point-to-point on the shadow (no other point-to-point traffic there
 * has this tag: clock tails use others, p2p.c; members start exchanges in the same order,
 * and non-overtaking pairs each receive with its exchange's message). In plain MPI, an Allreduce of one double at 2 ranks with an
 * Iallgather of one int alongside took 0.60 us, with this form 0.46 (alone: 0.38); at 4 ranks
 * 5.7 and 4.5 (3.2); and it leaves libnbc's progress callback unregistered. */
#define XCHG_TAG 0x6872
/* One by one: MPICH's MPI_STATUSES_IGNORE trips gcc's -Wstringop-overflow in a Waitall. */
static void wait_all(int n, MPI_Request *req) {
  for (int i = 0; i < n; i++) PMPI_Wait(&req[i], MPI_STATUS_IGNORE);
}
static int exchange_p2p(const hrace_comm_t *r, hrace_clk_t *send, int m, hrace_clk_t *recv,
                        MPI_Request *req, int *nreq) {
  int k = 0, rc = MPI_SUCCESS;
  memcpy(&recv[r->rank * m], send, m * sizeof *send);
  for (int p = 0; p < r->size && rc == MPI_SUCCESS; p++) {
    if (p == r->rank) continue;
    rc = PMPI_Irecv(&recv[p * m], m, MPI_UINT32_T, p, XCHG_TAG, r->shadow, &req[k]);
    if (rc != MPI_SUCCESS) break;
    k++;
    rc = PMPI_Isend(send, m, MPI_UINT32_T, p, XCHG_TAG, r->shadow, &req[k]);
    if (rc == MPI_SUCCESS) k++;
  }
  if (rc != MPI_SUCCESS) {       /* nothing may land in buffers the caller frees */
    for (int i = 0; i < k; i++) PMPI_Cancel(&req[i]);
    wait_all(k, req);
    k = 0;
  }
  *nreq = k;
  return rc;
}

/* Start (req != NULL: up to HRACE_XREQ_MAX requests, their number in *nreq) or run the
 * exchange: send -> recv. */
static int exchange(const hrace_coll_t *c, hrace_clk_t *send, int nsend, hrace_clk_t *recv,
                    int nrecv, MPI_Request *req, int *nreq) {
  const hrace_comm_t *r = c->rec;
  MPI_Comm s = r->shadow;
  MPI_Datatype T = MPI_UINT32_T;
  if (nreq) *nreq = 1;
  switch (c->kind) {
  case HRACE_COLL_BARRIER: case HRACE_COLL_ALL2ALL:
    if (c->p2p) return exchange_p2p(r, send, nsend, recv, req, nreq);   /* layered */
    if (sparse(r) && r->nout == 0 && req && r->size <= HRACE_XCHG_P2P)
      return exchange_p2p(r, send, 1, recv, req, nreq);
    if (sparse(r) && r->nout == 0)
      return req ? PMPI_Iallgather(send, 1, T, recv, 1, T, s, req) : PMPI_Allgather(send, 1, T, recv, 1, T, s);
    return req ? PMPI_Iallreduce(send, recv, nsend, T, MPI_MAX, s, req)
               : PMPI_Allreduce(send, recv, nsend, T, MPI_MAX, s);
  case HRACE_COLL_ONE2ALL:
    if (joins(c) || !ticks(c)) memcpy(recv, send, nsend * sizeof *send);
    else recv = send;
    return req ? PMPI_Ibcast(recv, nsend, T, c->root, s, req) : PMPI_Bcast(recv, nsend, T, c->root, s);
  case HRACE_COLL_ALL2ONE:
    return req ? PMPI_Ireduce(send, recv, nsend, T, MPI_MAX, c->root, s, req)
               : PMPI_Reduce(send, recv, nsend, T, MPI_MAX, c->root, s);
  case HRACE_COLL_SCAN:
    return req ? PMPI_Iscan(send, recv, nsend, T, MPI_MAX, s, req) : PMPI_Scan(send, recv, nsend, T, MPI_MAX, s);
  case HRACE_COLL_EXSCAN:
    return req ? PMPI_Iexscan(send, recv, nsend, T, MPI_MAX, s, req) : PMPI_Exscan(send, recv, nsend, T, MPI_MAX, s);
  default:
    return req ? PMPI_Ineighbor_allgather(send, nsend, T, recv, nsend, T, s, req)
               : PMPI_Neighbor_allgather(send, nsend, T, recv, nsend, T, s);
  }
}

/* A layered exchange's second round, run by every member once the first completed (whatever
 * the application's call returned: all of them started the first round): the layers beyond
 * the first, if any member's clock needs them. Returns what to join: recv itself (its first
 * layer) or a new array of the layers, *len entries. */
static hrace_clk_t *second_round(const hrace_coll_t *c, const hrace_clk_t *send,
                                 hrace_clk_t *recv, uint32_t *len) {
  /* a root broadcasts from its send buffer (exchange()): its recv holds nothing */
  int root = c->kind == HRACE_COLL_ONE2ALL && !joins(c);
  uint32_t w = (uint32_t)hrace__proc.size, layers = (root ? send : recv)[w], n = nclk();
  *len = w;
  if (layers <= 1) return recv;
  if (layers > n / w) layers = n / w;   /* every member has the same layout: cannot happen */
  uint32_t more = (layers - 1) * w;
  hrace_clk_t *all = malloc((size_t)layers * w * sizeof *all);
  if (!all) abort();
  memcpy(all, root ? send : recv, w * sizeof *all);
  if (c->kind != HRACE_COLL_ONE2ALL || root) count(more);
  int rc;
  if (c->kind == HRACE_COLL_ONE2ALL) {
    memcpy(all + w, c->snap + w, more * sizeof *all);   /* the root's, sent in place */
    rc = PMPI_Bcast(all + w, (int)more, MPI_UINT32_T, c->root, c->rec->shadow);
  } else {
    rc = PMPI_Allreduce(c->snap + w, all + w, (int)more, MPI_UINT32_T, MPI_MAX, c->rec->shadow);
  }
  if (rc != MPI_SUCCESS) {
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
      hrace__warn("a collective's clock exchange failed in its second round: this process may "
                  "report false races");
    free(all);
    return recv;
  }
  *len = layers * w;
  return all;
}

/* ---- bases: the clocks point-to-point frames are encoded against ----------------------------
 * (docs/mpi.md, "Clocks relative to a base"; the proof in docs/design.md, "Clocks at scale").
 * A *base* is what the exchange of a blocking all-to-all collective on a communicator of every
 * process delivered, laid out by world rank: recv[i] is member i's own entry at its start, the
 * same array at every member. Bases are numbered 1, 2, ... in the order of those collectives,
 * which is the same at every process when the application makes one MPI call at a time
 * at every rank (hrace__mpi_serial, agreed at MPI_Init: hrace__wire_bases) and a rank's clock
 * is its one entry (sparse()): each such exchange
 * completes at one process only after every member started it, and a blocking call ends
 * before the next begins, so two processes cannot take two of them in opposite orders. Under
 * those two conditions a process has also finished base N before it handles any frame that a
 * process which had finished N sent: it started N (the sender's exchange completed), and the
 * call that started it returned before the one that handles the frame. So a sender names the
 * latest base it holds, the receiver decodes with the same array, and only a base the
 * receiver has dropped since (see bases_prune) needs the fallback of p2p.c. Elsewhere
 * (threads, non-blocking collectives, sub-communicators) no base is made: frames are encoded
 * against the zero vector, which is exact without any agreement. */
/* Which bases a rank keeps. A frame naming base N is decoded exactly with N; without it only
 * by a receiving context that knows a later base (p2p.c, decode_frame). Each context records
 * the latest base it is known to cover (core/hb.h), so N may go once every live context covers
 * N + 1: hrace__ctx_base_floor() > N. Contexts that stay behind (an OpenMP task created before
 * the collectives, a pool thread idle since its last region) keep their bases alive, up to a
 * bound of KEEP_BYTES (at least BASES_MIN bases, at most BASES_MAX); past it the oldest go,
 * and a lagging context that then receives a frame naming one says so (p2p.c). The BASES_MIN
 * newest are always kept. */
#define BASES_MIN 4
#define BASES_MAX 1024
#define KEEP_BYTES (8u << 20)
static struct base { uint32_t num; hrace_clk_t *v; } *bases;   /* ascending num */
static uint32_t nbases, capbases;
static uint32_t bases_made, base_last;   /* collectives counted; the latest base held (0: none) */

static int makes_base(const hrace_coll_t *c) {
  const hrace_comm_t *r = c->rec;
  return hrace__wire_bases && (c->kind == HRACE_COLL_BARRIER || c->kind == HRACE_COLL_ALL2ALL) &&
         !r->inter && sparse(r) && r->nout == 0 && r->size == hrace__proc.size;
}

static uint32_t bases_bound(void) {
  uint32_t per = nclk() * (uint32_t)sizeof(hrace_clk_t), k = per ? KEEP_BYTES / per : BASES_MAX;
  return k < BASES_MIN ? BASES_MIN : k > BASES_MAX ? BASES_MAX : k;
}

/* Drop the bases no live context can need, and the oldest beyond the bound. */
static HRACE_COLD void bases_prune(void) {
  uint32_t floor = hrace__ctx_base_floor(), bound = bases_bound(), k = 0;
  while (k + BASES_MIN < nbases && (bases[k].num < floor || nbases - k > bound)) free(bases[k++].v);
  if (k) memmove(bases, bases + k, (nbases - k) * sizeof *bases), nbases -= k;
}

/* Every member counts the collective; those whose exchange delivered keep its base. */
static HRACE_COLD void base_record(const hrace_coll_t *c, const hrace_clk_t *recv, int ok) {
  uint32_t num = ++bases_made, n = nclk();
  if (!ok) return;
  if (nbases == capbases) {
    capbases = capbases ? 2 * capbases : 8;
    if (!(bases = realloc(bases, capbases * sizeof *bases))) abort();
  }
  hrace_clk_t *v = calloc(n ? n : 1, sizeof *v);
  if (!v) abort();
  for (int i = 0; i < c->rec->size; i++)
    if (c->rec->world[i] >= 0 && (uint32_t)c->rec->world[i] < n) v[c->rec->world[i]] = recv[i];
  bases[nbases++] = (struct base){ num, v };
  base_last = num;
}

HRACE_COLD uint32_t hrace__base_latest(const hrace_clk_t **v) {
  if (!base_last) return 0;
  *v = bases[nbases - 1].v;
  return base_last;
}

HRACE_COLD const hrace_clk_t *hrace__base_find(uint32_t num, const hrace_clk_t **newer) {
  *newer = NULL;
  for (uint32_t i = 0; i < nbases; i++) {
    if (bases[i].num == num) return bases[i].v;
    if (bases[i].num > num) {
      *newer = bases[i].v;
      break;
    }
  }
  return NULL;
}

size_t hrace__base_bytes(void) { return (size_t)nbases * nclk() * sizeof(hrace_clk_t); }

/* Join what the exchange delivered into the process clock. */
static void join(const hrace_comm_t *r, int kind, hrace_clk_t *recv, int nrecv, const char *why) {
  uint32_t n = nclk();
  if ((kind == HRACE_COLL_BARRIER || kind == HRACE_COLL_ALL2ALL) && sparse(r)) {
    hrace_clk_t stackv[256], *v = n <= 256 ? stackv : malloc(n * sizeof *v);
    if (!v) abort();
    hrace__clock_out(v);
    for (int i = 0; i < r->size; i++)
      if (r->world[i] >= 0 && recv[i] > v[r->world[i]]) v[r->world[i]] = recv[i];
    if (r->nout)
      for (int i = 0; i < r->nout; i++)
        if (recv[r->size + i] > v[r->out[i]]) v[r->out[i]] = recv[r->size + i];
    hrace__wait(v, n, why);
    if (v != stackv) free(v);
    return;
  }
  for (int off = 0; off + (int)n <= nrecv; off += (int)n) hrace__wait(recv + off, n, why);
}

static void finish(hrace_coll_t *c) {
  if (c->snap && c->snap != c->stack) free(c->snap);
  c->snap = NULL;
}

/* The end of an exchange whose first round completed: the second round if layered, then the
 * join (when the application's call succeeded) and the tick. Frees both buffers. */
static void conclude(hrace_coll_t *c, hrace_clk_t *send, hrace_clk_t *recv, int nrecv, int ok) {
  hrace_clk_t *all = recv;
  uint32_t len = 0;
  if (c->p2p) {   /* every member's [layer 0 | count]: their maximum, as Allreduce(MAX) gives */
    int m = hrace__proc.size + 1;
    for (int p = 1; p < c->rec->size; p++)
      for (int j = 0; j < m; j++)
        if (recv[p * m + j] > recv[j]) recv[j] = recv[p * m + j];
  }
  if (c->layered) all = second_round(c, send, recv, &len);
  int base = makes_base(c);
  if (base) base_record(c, recv, ok);
  if (ok && c->active) {
    if (joins(c)) {
      if (c->layered) hrace__wait(all, len, c->why);
      else join(c->rec, c->kind, recv, nrecv, c->why);
      if (base) hrace__ctx_know_base(base_last);
    }
    if (ticks(c)) hrace__signal_done(c->why);
  }
  if (base && ok) bases_prune();
  if (all != recv) free(all);
  free(send);
  free(recv);
  finish(c);
}

/* A barrier's wait serves hrace's own requests (docs/mpi.md, "Collectives"). A rank that sits
 * in MPI_Barrier while another does an epoch on its window is the commonest idle rank in an
 * RMA program; the lock grants, completions and records addressed to it were served by its
 * progress thread, which must first be woken and scheduled, on a core where this thread spins
 * inside MPI's blocking barrier: tens of microseconds per round trip on a busy machine. So the
 * exchange (which is the whole barrier) is started non-blocking and this thread tests it and
 * reads the channel in turn, counted as a reader of the process's rings meanwhile (senders
 * then ring no doorbell: core/chan.h, hrace__chan_spin). It holds no lock the handlers take
 * and makes no MPI call inside them. MPI's own blocking barrier polls in the same way. */
typedef struct xwait {
  int n, rc;
  MPI_Request *req;
} xwait_t;

static int xchg_done(void *p) {
  xwait_t *a = p;
  hrace__chan_help(1);
  int all = 1;
  for (int i = 0; i < a->n; i++) {
    if (a->req[i] == MPI_REQUEST_NULL) continue;
    int flag = 0;
    int rc = PMPI_Test(&a->req[i], &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      a->rc = rc;
      PMPI_Wait(&a->req[i], MPI_STATUS_IGNORE);   /* nothing may stay pending on freed buffers */
      a->req[i] = MPI_REQUEST_NULL;
      continue;
    }
    all &= flag;
  }
  return all;
}

/* hrace__chan_spin looks once before its first yield: each round starts with a look. */
#define XWAIT_SPIN_NS 1000000L   /* then look again whether spinning is still wanted */
static int wait_serving(int n, MPI_Request *req) {
  xwait_t a = { n, MPI_SUCCESS, req };
  while (!hrace__chan_spin(1, xchg_done, &a, XWAIT_SPIN_NS)) {}
  return a.rc;
}

int hrace__coll_barrier(hrace_coll_t *c) {
  if (!c->rec->inter) {
    hrace__coll_start(c);
    if (c->started) {
      int rc = wait_serving(c->nx, c->xreq);
      conclude(c, c->xsend, c->xrecv, c->nrecv, rc == MPI_SUCCESS);
      return rc;
    }
  }
  hrace_clk_t *send;
  int nsend, nrecv;
  c->layered = layered(c);
  hrace_clk_t *recv = buffers(c, &send, &nsend, &nrecv);
  int rc = exchange(c, send, nsend, recv, nrecv, NULL, NULL);
  if (rc != MPI_SUCCESS) c->layered = 0;   /* no first round: no second */
  conclude(c, send, recv, nrecv, rc == MPI_SUCCESS);
  return rc;
}

/* Blocking collectives on intracommunicators: the exchange (on the shadow) starts before the
 * real call and is waited for after it. Both progress inside the real call, so the two
 * latencies overlap instead of adding up (bench/README.md: Allreduce of one double at 2 ranks
 * 1.93x -> 1.62x of the plain call, at 4 ranks 2.0x -> 1.2x, measured in plain MPI). The real
 * call is the application's, unchanged: same algorithm, same results. The snapshot sent is
 * still the one taken at the call's start, and nothing is joined until both are complete; a
 * failed real call still waits for the exchange (every member started it) and joins nothing.
 * Intercommunicators keep the blocking exchange after the call. */
void hrace__coll_start(hrace_coll_t *c) {
  if (!c->rec || c->rec->inter) return;
  hrace_clk_t *send;
  int nsend, nrecv;
  c->layered = layered(c);
  c->p2p = c->layered && c->kind != HRACE_COLL_ONE2ALL && c->rec->size <= HRACE_XCHG_P2P;
  hrace_clk_t *recv = buffers(c, &send, &nsend, &nrecv);
  if (exchange(c, send, nsend, recv, nrecv, c->xreq, &c->nx) != MPI_SUCCESS) {
    c->layered = c->p2p = 0;
    free(send);
    free(recv);
    return;
  }
  c->started = 1;
  c->xsend = send, c->xrecv = recv, c->nrecv = nrecv;
}

static int launch(hrace_coll_t *c, hrace_rs_t *s, hrace_clk_t *send, int nsend, hrace_clk_t *recv,
                  int nrecv);

void hrace__coll_end(hrace_coll_t *c, int rc, MPI_Request *req) {
  if (c->started) {
    wait_all(c->nx, c->xreq);
    conclude(c, c->xsend, c->xrecv, c->nrecv, rc == MPI_SUCCESS);
    return;
  }
  if (!c->rec || rc != MPI_SUCCESS) {
    finish(c);
    return;
  }
  hrace_clk_t *send;
  int nsend, nrecv;
  hrace_clk_t *recv = buffers(c, &send, &nsend, &nrecv);
  if (!req) {
    conclude(c, send, recv, nrecv, exchange(c, send, nsend, recv, nrecv, NULL, NULL) == MPI_SUCCESS);
    return;
  }
  /* Non-blocking: the exchange runs along; the state owns both buffers. */
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_COLL);
  s->rec = c->rec, s->ckind = c->kind, s->root = c->root, s->fn = c->why;
  if (launch(c, s, send, nsend, recv, nrecv)) {
    hrace__rs_free(s);
    return;
  }
  hrace__rs_put(*req, s);
}

/* MPI-4's persistent collectives (MPI-4.0 Sec. 6.13): the initialisation is a collective call
 * that moves no data and orders nothing; every MPI_Start begins one round, which orders as the
 * non-blocking form of the call does (a round's exchange starts at MPI_Start, the signal, and
 * is joined when the request completes). The state is persistent: it keeps the kind, root and
 * buffer pieces (nbcbuf.c) from one round to the next, and each Start makes the round's own
 * clock buffers. Rounds of different requests start in the order of the application's Starts,
 * which MPI requires to be the same at every member, as for non-blocking collectives. */
int hrace__coll_persistent(int kind, MPI_Comm comm, int root, const char *fn, MPI_Request *req,
                           int active, uintptr_t pc) {
  hrace_comm_t *rec = hrace__comm_of(comm);
  if (!rec || !req || *req == MPI_REQUEST_NULL) return 0;
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_COLL);
  s->persistent = 1;
  s->rec = rec, s->ckind = kind, s->root = root, s->fn = fn, s->active = active, s->pc = pc;
  hrace__rs_put(*req, s);
  return 1;
}

/* MPI_Start (complete.c) of a persistent collective: this round's exchange, its tick, and its
 * buffers in flight until completion. */
void hrace__coll_started(hrace_rs_t *s, int active) {
#if MPI_VERSION >= 4
  if (s->ckind == HRACE_COLL_PART) {
    hrace__part_started(s, active);
    return;
  }
#endif
  hrace_coll_t c;
  hrace__coll_begin(&c, s->ckind, s->rec->comm, s->root, s->fn, active);
  if (!c.rec) return;
  free(s->frame), free(s->cbuf);   /* the last round's (complete: nothing lands there) */
  s->frame = NULL, s->cbuf = NULL;
  hrace_clk_t *send;
  int nsend, nrecv;
  hrace_clk_t *recv = buffers(&c, &send, &nsend, &nrecv);
  if (launch(&c, s, send, nsend, recv, nrecv)) return;
  s->started = 1;
  if (active && s->npieces) {
    hrace__rs_buffers_done(s);
    s->nbbuf = hrace__nb_track(s->pieces, s->npieces, s->fn, s->pc);
  }
}

/* Start the non-blocking exchange of c into state s, which then owns both buffers; the tick.
 * Nonzero (buffers freed, nothing started) when MPI refused the exchange. */
static int launch(hrace_coll_t *c, hrace_rs_t *s, hrace_clk_t *send, int nsend, hrace_clk_t *recv,
                  int nrecv) {
  s->active = c->active;
  s->cn = nrecv;
  s->frame = send;
  s->cbuf = recv;
  s->done = joins(c);
  if (exchange(c, send, nsend, recv, nrecv, s->shadow_req, &s->nshadow) != MPI_SUCCESS) {
    s->nshadow = 0;
    free(send), free(recv);
    s->frame = NULL, s->cbuf = NULL;
    finish(c);
    return -1;
  }
  if (c->active && ticks(c)) hrace__signal_done(c->why);
  finish(c);
  return 0;
}

/* The application's non-blocking collective completed: finish the exchange and join. A
 * persistent one's round is over: a later completion of the inactive request joins nothing. */
void hrace__coll_complete(hrace_rs_t *s, int active) {
  wait_all(s->nshadow, s->shadow_req);
  if (active && s->active && s->done) join(s->rec, s->ckind, s->cbuf, s->cn, s->fn);
  s->nshadow = 0;
  s->done = 0;
  s->started = 0;
}
