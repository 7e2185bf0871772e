/* Posted receives and the synchronous-send responder (see posted.h).
 *
 * MPI_Ssend returns once its message matched a receive: the sender is then ordered after
 * everything the receiver did before posting that receive, and must know it before it goes
 * on. The receiver's application thread cannot be asked (it may be computing, or blocked on
 * the sender), so every process runs a responder thread on hrace's communicator `sync`:
 *
 *   sender                                      receiver's responder
 *   PMPI_Ssend(frame with SYNC, id) returns
 *   QUERY(comm id, own rank, tag, id)  ------>  answer = the clock of
 *                                                 (a) the receive that completed with (sender, id), if
 *                                                     the application completed it already, else
 *                                                 (b) the earliest pending post that can match
 *                                                     (comm, sender, tag): MPI matched the message to it or
 *                                                     to a later post (non-overtaking), so its clock is a
 *                                                     sound lower bound, exact unless several posts could match
 *   join answer  <---------------------------   REPLY(clock), tag derived from id
 *
 * Posts snapshot the clock and tick (a post is the receiver's signal), so events after the
 * post are never covered by an answer. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "core/log.h"
#include "core/runtime.h"
#include "mpi/msgrace.h"
#include "mpi/posted.h"

pthread_mutex_t hrace__post_mu = PTHREAD_MUTEX_INITIALIZER;
static hrace_post_t *head, *tail;
static uint64_t next_seq;

/* Answers for synchronous sends whose receive completed before the query came (exact), and
 * queries answered before their receive completed (so that completion stores nothing). */
typedef struct answer { int sender; uint32_t id; hrace_clk_t *snap; struct answer *next; } answer_t;
static answer_t *done_list, *asked_list;

static MPI_Comm sync_comm = MPI_COMM_NULL;
static int sync_tag_ub = 32767;
static _Atomic uint32_t next_sync_id;

enum { TAG_QUERY = 0 };
typedef struct query { uint32_t comm_id, sync_id; int32_t src, tag, sender, stop; } query_t;

static int reply_tag(uint32_t id) { return 1 + (int)(id % (uint32_t)(sync_tag_ub - 1)); }
uint32_t hrace__ssend_next_id(void) { return atomic_fetch_add(&next_sync_id, 1) + 1; }

hrace_post_t *hrace__post_add(hrace_comm_t *rec, int src, int tag, int active, hrace_post_t *mem) {
  uint32_t n = hrace__clock_len();
  int inl = n <= sizeof mem->inl / sizeof *mem->inl;
  hrace_post_t *p = mem ? mem : malloc(sizeof *p + (inl ? 0 : n * sizeof(hrace_clk_t)));
  if (!p) abort();
  p->prev = p->next = NULL;
  p->rec = rec, p->comm_id = rec->id, p->src = src, p->tag = tag, p->n = n;
  p->epoch_set = 0, p->cands = NULL, p->heap = !mem;
  p->snap = inl ? p->inl : mem ? malloc(n * sizeof(hrace_clk_t)) : (hrace_clk_t *)(p + 1);
  if (!p->snap) abort();
  hrace__clock_out(p->snap);
  if (active) hrace__signal_done("receive posted");
  if (src == MPI_ANY_SOURCE) atomic_store_explicit(&rec->wild, 1, memory_order_relaxed);
  pthread_mutex_lock(&hrace__post_mu);
  p->seq = ++next_seq;
  p->prev = tail;
  if (tail) tail->next = p;
  else head = p;
  tail = p;
  pthread_mutex_unlock(&hrace__post_mu);
  return p;
}

static answer_t *take(answer_t **list, int sender, uint32_t id) {
  for (answer_t **a = list; *a; a = &(*a)->next)
    if ((*a)->sender == sender && (*a)->id == id) {
      answer_t *x = *a;
      *a = x->next;
      return x;
    }
  return NULL;
}

void hrace__post_done(hrace_post_t *p, const hrace_hdr_t *h, int src_rank, int tag) {
  pthread_mutex_lock(&hrace__post_mu);
  int src_world = h ? hrace__comm_peer_world(p->rec, src_rank) : -1;
  if (h && atomic_load_explicit(&p->rec->wild, memory_order_relaxed))
    hrace__mrace_received(p, h, src_world, tag);
  if (h && (h->flags & HRACE_HDR_SYNC) && src_world >= 0) {
    answer_t *a = take(&asked_list, src_world, h->sync_id);
    if (a) {
      free(a);
    } else if ((a = malloc(sizeof *a + p->n * sizeof(hrace_clk_t)))) {
      *a = (answer_t){ src_world, h->sync_id, (hrace_clk_t *)(a + 1), done_list };
      memcpy(a->snap, p->snap, p->n * sizeof *p->snap);
      done_list = a;
    }
  }
  if (p->prev) p->prev->next = p->next;
  else head = p->next;
  if (p->next) p->next->prev = p->prev;
  else tail = p->prev;
  for (hrace_cand_t *c = p->cands, *nx; c; c = nx) nx = c->next, free(c);
  pthread_mutex_unlock(&hrace__post_mu);
  if (p->snap != p->inl && p->snap != (hrace_clk_t *)(p + 1)) free(p->snap);
  if (p->heap) free(p);
}

/* Iterate posts in posting order (msgrace.c; caller holds the lock). */
hrace_post_t *hrace__post_first(void) { return head; }

/* ---- the responder ------------------------------------------------------------------------ */
static void answer(const query_t *q) {
  uint32_t n = hrace__clock_len();
  hrace_clk_t *out = calloc(n ? n : 1, sizeof *out);
  if (!out) abort();
  pthread_mutex_lock(&hrace__post_mu);
  answer_t *a = take(&done_list, q->sender, q->sync_id);
  if (a) {
    memcpy(out, a->snap, n * sizeof *out);
    free(a);
  } else {
    for (hrace_post_t *p = head; p; p = p->next)
      if (p->comm_id == q->comm_id && (p->src == MPI_ANY_SOURCE || p->src == q->src) &&
          (p->tag == MPI_ANY_TAG || p->tag == q->tag)) {
        memcpy(out, p->snap, (p->n < n ? p->n : n) * sizeof *out);
        break;
      }
    if ((a = malloc(sizeof *a))) {
      *a = (answer_t){ q->sender, q->sync_id, NULL, asked_list };
      asked_list = a;
    }
  }
  pthread_mutex_unlock(&hrace__post_mu);
  PMPI_Send(out, (int)n, MPI_UINT32_T, q->sender, reply_tag(q->sync_id), sync_comm);
  free(out);
}

static pthread_t responder;
static int responder_running;

static void *responder_main(void *arg) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);
  prctl(PR_SET_TIMERSLACK, 1000UL);
  hrace__thread_internal();
  hrace__thread()->depth = 1;
  long idle = 0;
  for (;;) {
    int flag = 0;
    MPI_Status st;
    PMPI_Iprobe(MPI_ANY_SOURCE, TAG_QUERY, sync_comm, &flag, &st);
    if (!flag) {
      /* Same back-off as the RMA progress thread: hot after traffic, then 2 us .. 1 ms. */
      if (++idle > 200) {
        long ns = idle > 2200 ? 1000000 : (idle - 200) * 500;
        struct timespec ts = { 0, ns < 2000 ? 2000 : ns };
        nanosleep(&ts, NULL);
      }
      continue;
    }
    idle = 0;
    query_t q;
    PMPI_Recv(&q, sizeof q, MPI_BYTE, st.MPI_SOURCE, TAG_QUERY, sync_comm, MPI_STATUS_IGNORE);
    if (q.stop) break;
    answer(&q);
  }
  return NULL;
}

void hrace__ssend_fetch(hrace_comm_t *rec, int dest, int tag, uint32_t sync_id, const char *why) {
  int w = hrace__comm_peer_world(rec, dest);
  if (w < 0 || sync_comm == MPI_COMM_NULL) return;
  query_t q = { rec->id, sync_id, rec->rank, tag, hrace__proc.rank, 0 };
  uint32_t n = hrace__clock_len();
  hrace_clk_t stackbuf[256], *got = n <= 256 ? stackbuf : malloc(n * sizeof *got);
  if (!got) abort();
  PMPI_Send(&q, sizeof q, MPI_BYTE, w, TAG_QUERY, sync_comm);
  PMPI_Recv(got, (int)n, MPI_UINT32_T, w, reply_tag(sync_id), sync_comm, MPI_STATUS_IGNORE);
  hrace__wait(got, n, why);
  if (got != stackbuf) free(got);
}

void hrace__ssend_start(void) {
  PMPI_Comm_dup(MPI_COMM_WORLD, &sync_comm);
  PMPI_Comm_set_name(sync_comm, "hrace-sync");
  void *v;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  if (flag) sync_tag_ub = *(int *)v;
  if (pthread_create(&responder, NULL, responder_main, NULL))
    hrace__fatal("cannot start the synchronous-send responder: %s", strerror(errno));
  responder_running = 1;
}

/* Called after the Finalize barrier: no query is in flight (a sender waits for its answer). */
void hrace__ssend_stop(void) {
  if (!responder_running) return;
  query_t q = { .stop = 1 };
  PMPI_Send(&q, sizeof q, MPI_BYTE, hrace__proc.rank, TAG_QUERY, sync_comm);
  pthread_join(responder, NULL);
  responder_running = 0;
  PMPI_Comm_free(&sync_comm);
  pthread_mutex_lock(&hrace__post_mu);
  for (answer_t *a = done_list, *nx; a; a = nx) nx = a->next, free(a);
  for (answer_t *a = asked_list, *nx; a; a = nx) nx = a->next, free(a);
  done_list = asked_list = NULL;
  pthread_mutex_unlock(&hrace__post_mu);
}
