/* Posted receives and the synchronous-send responder (see posted.h).
 *
 * MPI_Ssend returns once its message matched a receive: the sender is then ordered after
 * everything the receiver did before posting that receive, and must know it before it goes
 * on. The receiver's application thread cannot be asked (it may be computing, or blocked on
 * the sender), so the sender asks the receiver's progress thread (core/chan.h):
 *
 *   sender                                      receiver's progress thread
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
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/chan.h"
#include "base/log.h"
#include "mpi/msgrace.h"
#include "mpi/posted.h"

hrace_spin_t hrace__post_mu;

void hrace__post_lock_slow(void) {
  for (unsigned i = 0;; i++) {
    if (!atomic_load_explicit(&hrace__post_mu.v, memory_order_relaxed) &&
        !atomic_exchange_explicit(&hrace__post_mu.v, 1, memory_order_acquire))
      return;
    if (i >= 100) {
      sched_yield();
    } else {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      __asm__ volatile("yield");
#endif
    }
  }
}
static hrace_list_t posts = HRACE_LIST_INIT(posts);   /* pending, in posting order */
static uint64_t next_seq;

/* Answers for synchronous sends whose receive completed before the query came (exact), and
 * queries answered before their receive completed (so that completion stores nothing). */
typedef struct answer { int sender; uint32_t id; hrace_clk_t *snap; struct answer *next; } answer_t;
static answer_t *done_list, *asked_list;

static _Atomic uint32_t next_sync_id;

typedef struct query { uint32_t comm_id, sync_id; int32_t src, tag, sender; } query_t;

static int32_t reply_tag(uint32_t id) { return (int32_t)(0x40000000u | (id & 0x3fffffffu)); }
uint32_t hrace__ssend_next_id(void) { return atomic_fetch_add(&next_sync_id, 1) + 1; }

hrace_post_t *hrace__post_add(hrace_comm_t *rec, int src, int tag, int active, hrace_post_t *mem) {
  uint32_t n = hrace__clock_len();
  int inl = n <= sizeof mem->inl / sizeof *mem->inl;
  hrace_post_t *p = mem ? mem : malloc(sizeof *p + (inl ? 0 : n * sizeof(hrace_clk_t)));
  if (!p) abort();
  p->rec = rec, p->comm_id = rec->id, p->src = src, p->tag = tag, p->n = n;
  p->epoch_set = 0, p->cands = NULL, p->heap = !mem;
  p->snap = inl ? p->inl : mem ? malloc(n * sizeof(hrace_clk_t)) : (hrace_clk_t *)(p + 1);
  if (!p->snap) abort();
  hrace__clock_out(p->snap);
  if (active) hrace__signal_done("receive posted");
  if (src == MPI_ANY_SOURCE) atomic_store_explicit(&rec->wild, 1, memory_order_relaxed);
  hrace__post_lock();
  p->seq = ++next_seq;
  hrace_list_push_back(&posts, &p->link);
  hrace__post_unlock();
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

/* A synchronous sender's receive completed: keep the post's clock for its query, unless the
 * query came first (caller holds the lock). */
static void keep_answer(int src_world, uint32_t sync_id, const hrace_clk_t *snap, uint32_t n) {
  answer_t *a = take(&asked_list, src_world, sync_id);
  if (a) {
    free(a);
  } else if ((a = malloc(sizeof *a + n * sizeof(hrace_clk_t)))) {
    *a = (answer_t){ src_world, sync_id, (hrace_clk_t *)(a + 1), done_list };
    memcpy(a->snap, snap, n * sizeof *snap);
    done_list = a;
  }
}

void hrace__post_done(hrace_post_t *p, const hrace_hdr_t *h, int src_rank, int tag) {
  hrace__post_lock();
  int src_world = h ? hrace__comm_peer_world(p->rec, src_rank) : -1;
  if (h && atomic_load_explicit(&p->rec->wild, memory_order_relaxed))
    hrace__mrace_received(p, h, src_world, tag);
  if (h && (hrace__hdr_flags(h) & HRACE_HDR_SYNC) && src_world >= 0)
    keep_answer(src_world, h->sync_id, p->snap, p->n);
  hrace_list_remove(&p->link);
  for (hrace_cand_t *c = p->cands, *nx; c; c = nx) nx = c->next, free(c);
  hrace__post_unlock();
  if (p->snap != p->inl && p->snap != (hrace_clk_t *)(p + 1)) free(p->snap);
  if (p->heap) free(p);
}

/* ---- the pending blocking receive of a serial program -------------------------------------- */
/* In a program that makes one MPI call at a time (hrace__mpi_serial()), a blocking receive is
 * always the latest post, and at most one is pending. When it names its source on a
 * communicator without wildcard receives (so message races do not need it in the list), it
 * lives here instead of in the list: its thread writes it without the lock, a sequence count
 * (odd while written) lets the responder read it whole. Saves the list's lock twice per
 * receive, about 20 of the ~100 ns hrace adds to a ping-pong message (bench/README.md). */
static struct {
  _Atomic uint32_t seq;
  int active, src, tag;
  uint32_t comm_id, n;
  hrace_clk_t *snap;           /* hrace__clock_len() entries, allocated once */
} blk;

static void blk_begin(void) {
  atomic_store_explicit(&blk.seq, atomic_load_explicit(&blk.seq, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
}
static void blk_end(void) {
  atomic_store_explicit(&blk.seq, atomic_load_explicit(&blk.seq, memory_order_relaxed) + 1,
                        memory_order_release);
}

int hrace__post_blocking(hrace_comm_t *rec, int src, int tag, int active) {
  if (!hrace__mpi_serial() || src == MPI_ANY_SOURCE ||
      atomic_load_explicit(&rec->wild, memory_order_relaxed))
    return 0;
  uint32_t n = hrace__clock_len();
  if (HRACE_UNLIKELY(!blk.snap || blk.n < n)) {   /* before the first post: nobody reads it */
    free(blk.snap);
    blk.snap = malloc((n ? n : 1) * sizeof *blk.snap);
    if (!blk.snap) abort();
  }
  /* The clock first: taking it may flush forwarded accesses and wait for this process's own
   * progress thread, which must not find the slot half written meanwhile. Only this thread
   * changes the clock it returns, so it is copied straight into the slot (hrace__clock_out
   * without its flush). */
  const hrace_vc_t *v = hrace__signal_clock();
  uint32_t m = v->n < n ? v->n : n;
  blk_begin();
  blk.comm_id = rec->id, blk.src = src, blk.tag = tag, blk.n = n;
  hrace__copy(blk.snap, v->c, m * sizeof *v->c);
  if (m < n) memset(blk.snap + m, 0, (n - m) * sizeof *v->c);
  blk.active = 1;
  blk_end();
  if (active) hrace__signal_done("receive posted");
  return 1;
}

void hrace__post_blocking_done(hrace_comm_t *rec, const hrace_hdr_t *h, int src_rank) {
  int src_world = h && (hrace__hdr_flags(h) & HRACE_HDR_SYNC) ? hrace__comm_peer_world(rec, src_rank) : -1;
  if (src_world >= 0) {   /* answer kept and slot cleared at once for the responder */
    hrace__post_lock();
    keep_answer(src_world, h->sync_id, blk.snap, blk.n);
  }
  blk_begin();
  blk.active = 0;
  blk_end();
  if (src_world >= 0) hrace__post_unlock();
}

/* Does the pending blocking receive match query (comm_id, src, tag)? Copies its clock to out
 * (n entries) if so. Caller holds the lock. */
static int blk_match(uint32_t comm_id, int src, int tag, hrace_clk_t *out, uint32_t n) {
  for (;;) {
    uint32_t s1 = atomic_load_explicit(&blk.seq, memory_order_acquire);
    if (s1 & 1) continue;
    int hit = blk.active && blk.comm_id == comm_id && blk.src == src &&
              (blk.tag == MPI_ANY_TAG || blk.tag == tag);
    if (hit) memcpy(out, blk.snap, (blk.n < n ? blk.n : n) * sizeof *out);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&blk.seq, memory_order_relaxed) == s1) return hit;
  }
}

/* Iterate posts in posting order: the one after p (NULL: the first), or NULL (msgrace.c;
 * caller holds the lock). */
hrace_post_t *hrace__post_next(const hrace_post_t *p) {
  const hrace_list_t *l = p ? p->link.next : posts.next;
  return l == &posts ? NULL : hrace_list_entry(l, hrace_post_t, link);
}

/* ---- the responder: the progress thread answers queries ---------------------------------- */
void hrace__ssend_on_query(const void *buf, size_t bytes, int src) {
  query_t q;
  if (bytes != sizeof q) {
    hrace__warn("protocol error: malformed synchronous-send query from rank %d dropped", src);
    return;
  }
  memcpy(&q, buf, sizeof q);
  uint32_t n = hrace__clock_len();
  hrace_clk_t *out = calloc(n ? n : 1, sizeof *out);
  if (!out) abort();
  hrace__post_lock();
  answer_t *a = take(&done_list, q.sender, q.sync_id);
  if (a) {
    memcpy(out, a->snap, n * sizeof *out);
    free(a);
  } else {
    hrace_post_t *p;
    for (p = hrace__post_next(NULL); p; p = hrace__post_next(p))
      if (p->comm_id == q.comm_id && (p->src == MPI_ANY_SOURCE || p->src == q.src) &&
          (p->tag == MPI_ANY_TAG || p->tag == q.tag)) {
        memcpy(out, p->snap, (p->n < n ? p->n : n) * sizeof *out);
        break;
      }
    if (!p) blk_match(q.comm_id, q.src, q.tag, out, n);   /* the latest post, if pending */
    if ((a = malloc(sizeof *a))) {
      *a = (answer_t){ q.sender, q.sync_id, NULL, asked_list };
      asked_list = a;
    }
  }
  hrace__post_unlock();
  hrace__chan_reply(q.sender, reply_tag(q.sync_id), out, n * sizeof *out);
  free(out);
}

void hrace__ssend_fetch(hrace_comm_t *rec, int dest, int tag, uint32_t sync_id, const char *why) {
  int w = hrace__comm_peer_world(rec, dest);
  if (w < 0) return;
  query_t q = { rec->id, sync_id, rec->rank, tag, hrace__proc.rank };
  hrace__chan_send(w, HRACE_CHAN_SYNCQ, &q, sizeof q, NULL, 0);
  size_t bytes;
  hrace_clk_t *got = hrace__chan_wait(w, reply_tag(sync_id), &bytes);
  hrace__wait(got, (uint32_t)(bytes / sizeof *got), why);
  free(got);
}

/* MPI_Finalize, after its barrier: no query is in flight (a sender waits for its answer). */
void hrace__ssend_stop(void) {
  hrace__post_lock();
  for (answer_t *a = done_list, *nx; a; a = nx) nx = a->next, free(a);
  for (answer_t *a = asked_list, *nx; a; a = nx) nx = a->next, free(a);
  done_list = asked_list = NULL;
  hrace__post_unlock();
}
