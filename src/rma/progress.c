/* The progress thread and the origin <-> target message protocol (see protocol.h).
 *
 * Each process runs one progress thread that receives requests on hrace's own connections
 * (core/chan.h, not MPI) and applies them: operation records into the window shadow,
 * completions, lock tokens, PSCW and annotation deposits, accesses forwarded from other
 * processes' mappings of a shared window, and synchronous-send queries (mpi/ssend.c). A target
 * that computes, sleeps or polls its window therefore never delays an origin. The thread
 * sleeps in poll() while nothing arrives, and makes no MPI call. After each message it wakes
 * the application threads waiting for a deposit (hrace__win_wait). A thread that waits inside
 * a call for a deposit or a reply runs the same handlers on what has arrived, instead of
 * waiting for this thread to be scheduled (core/chan.h, hrace__chan_help; docs/rma.md,
 * "Synchronisation"): one reader at a time, under the channel's reader lock. */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/chan.h"
#include "core/hooks.h"
#include "base/log.h"
#include "core/race.h"
#include "core/thread.h"
#include "mpi/msgrace.h"
#include "mpi/posted.h"
#include "report/report.h"
#include "rma/protocol.h"
#include "rma/rma.h"
#include "rma/shared.h"
#include "rma/window.h"

/* ---- message encoding ---------------------------------------------------------------- */

/* As hrace__msg_pack, into `room` (cap bytes) when the message fits there, else into a
 * malloc'd buffer: a message to send at once needs no allocation (a hash table sends two per
 * operation; a malloc and free cost about 200 instructions of each). */
static void *msg_pack_in(const hrace_msg_t *h, const uint64_t *ranges, const hrace_vc_t *vc,
                         const char *func, const char *file, const void *blob, void *room,
                         size_t cap, int *bytes) {
  hrace_msg_t hh = *h;
  hh.vc_n = vc ? vc->n : 0;
  hh.func_len = func ? (uint32_t)strlen(func) + 1 : 0;
  hh.file_len = file ? (uint32_t)strlen(file) + 1 : 0;
  if (!blob) hh.blob_len = 0;
  size_t n = sizeof hh + hh.nranges * 2 * sizeof(uint64_t) + hh.vc_n * sizeof(hrace_clk_t) +
             hh.func_len + hh.file_len + hh.blob_len;
  char *buf = n <= cap ? room : malloc(n), *p = buf;
  if (!buf) abort();
  memcpy(p, &hh, sizeof hh), p += sizeof hh;
  if (hh.nranges) memcpy(p, ranges, hh.nranges * 2 * sizeof(uint64_t)), p += hh.nranges * 2 * sizeof(uint64_t);
  if (hh.vc_n) memcpy(p, vc->c, hh.vc_n * sizeof(hrace_clk_t)), p += hh.vc_n * sizeof(hrace_clk_t);
  if (hh.func_len) memcpy(p, func, hh.func_len), p += hh.func_len;
  if (hh.file_len) memcpy(p, file, hh.file_len), p += hh.file_len;
  if (hh.blob_len) memcpy(p, blob, hh.blob_len), p += hh.blob_len;
  *bytes = (int)n;
  return buf;
}

void *hrace__msg_pack(const hrace_msg_t *h, const uint64_t *ranges, const hrace_vc_t *vc,
                      const char *func, const char *file, const void *blob, int *bytes) {
  return msg_pack_in(h, ranges, vc, func, file, blob, NULL, 0, bytes);
}

int hrace__msg_unpack(void *buf, int bytes, hrace_msg_t **h, uint64_t **ranges, hrace_clk_t **vc,
                      const char **func, const char **file, const char **blob) {
  if (bytes < (int)sizeof(hrace_msg_t)) return -1;
  char *p = buf;
  hrace_msg_t *hh = buf;
  uint64_t need = sizeof *hh + (uint64_t)hh->nranges * 2 * sizeof(uint64_t) +
                  (uint64_t)hh->vc_n * sizeof(hrace_clk_t) + hh->func_len + hh->file_len +
                  hh->blob_len;
  if (need != (uint64_t)bytes) return -1;
  p += sizeof *hh;
  *h = hh;
  *ranges = (uint64_t *)p, p += hh->nranges * 2 * sizeof(uint64_t);
  *vc = (hrace_clk_t *)p, p += hh->vc_n * sizeof(hrace_clk_t);
  *func = hh->func_len ? p : "??", p += hh->func_len;
  *file = hh->file_len ? p : "??", p += hh->file_len;
  *blob = p;
  if (hh->func_len && (*func)[hh->func_len - 1]) return -1;
  if (hh->file_len && (*file)[hh->file_len - 1]) return -1;
  return 0;
}

/* ---- origin side ---------------------------------------------------------------------- */

/* Which of core/chan.h's sends raw_send_q uses (records always go lazy). */
enum { SEND, SEND_QUIET, SEND_SERVED };
static void raw_send_q(int target, const hrace_msg_t *h, const uint64_t *ranges,
                       const hrace_vc_t *vc, const char *func, const char *file, const void *blob,
                       int how) {
  int n;
  _Alignas(hrace_msg_t) char room[512];
  void *buf = msg_pack_in(h, ranges, vc, func, file, blob, room, sizeof room, &n);
  /* The target's progress thread always drains its connections, so this returns as soon as
   * the socket or ring took the message, never waiting on the application (core/chan.h).
   * Operation records may wait for the completion message that always follows them: one write
   * per batch (bench/README.md, "RMA"). */
  if (h->type == HRACE_MSG_OP) hrace__chan_send_lazy(target, HRACE_CHAN_CTL, buf, (size_t)n);
  else if (how == SEND_SERVED) hrace__chan_send_served(target, HRACE_CHAN_CTL, buf, (size_t)n);
  else if (how == SEND_QUIET) hrace__chan_send_quiet(target, HRACE_CHAN_CTL, buf, (size_t)n);
  else hrace__chan_send(target, HRACE_CHAN_CTL, buf, (size_t)n, NULL, 0);
  if (buf != room) free(buf);
}

static void raw_send(int target, const hrace_msg_t *h, const uint64_t *ranges,
                     const hrace_vc_t *vc, const char *func, const char *file, const void *blob) {
  raw_send_q(target, h, ranges, vc, func, file, blob, SEND);
}

void hrace__ctl_send_blob(int target, const hrace_msg_t *h, const uint64_t *ranges,
                          const hrace_vc_t *vc, const char *func, const char *file,
                          const void *blob) {
  if (h->type != HRACE_MSG_FWD) hrace__shared_flush_to(target);
  raw_send(target, h, ranges, vc, func, file, blob);
}

void hrace__ctl_send(int target, const hrace_msg_t *h, const uint64_t *ranges,
                     const hrace_vc_t *vc, const char *func, const char *file) {
  hrace__ctl_send_blob(target, h, ranges, vc, func, file, NULL);
}

void hrace__ctl_send_quiet(int target, const hrace_msg_t *h, const hrace_vc_t *vc) {
  hrace__shared_flush_to(target);
  raw_send_q(target, h, NULL, vc, NULL, NULL, NULL, SEND_QUIET);
}

void hrace__ctl_send_served(int target, const hrace_msg_t *h) {
  hrace__shared_flush_to(target);
  raw_send_q(target, h, NULL, NULL, NULL, NULL, NULL, SEND_SERVED);
}

void hrace__ctl_wait_reply(int target, uint32_t type, hrace_vc_t *got) {
  size_t n;
  void *buf = hrace__chan_wait_help(target, hrace__thread()->reply_tag, &n);
  hrace_msg_t *h;
  uint64_t *ranges;
  hrace_clk_t *vc;
  const char *func, *file, *blob;
  if (hrace__msg_unpack(buf, (int)n, &h, &ranges, &vc, &func, &file, &blob) || h->type != type)
    hrace__fatal("protocol error: bad reply from rank %d", target);
  if (got) hrace__vc_join_raw(got, vc, h->vc_n);
  free(buf);
}

void hrace__ctl_ping(int target) {
  hrace_msg_t h = { .type = HRACE_MSG_PING, .origin = hrace__proc.rank,
                    .thread = hrace__thread()->tid, .reply_tag = hrace__thread()->reply_tag };
  raw_send(target, &h, NULL, NULL, NULL, NULL, NULL);
  hrace__ctl_wait_reply(target, HRACE_MSG_ACK, NULL);
}

/* ---- target side: handlers run on the progress thread only ---------------------------- */

void hrace__ctl_reply(int to, int tag, uint32_t type, const hrace_vc_t *vc) {
  hrace_msg_t h = { .type = type, .origin = hrace__proc.rank };
  int n;
  _Alignas(hrace_msg_t) char room[512];
  void *buf = msg_pack_in(&h, NULL, vc, NULL, NULL, NULL, room, sizeof room, &n);
  hrace__chan_reply(to, tag, buf, (size_t)n);
  if (buf != room) free(buf);
}
#define reply hrace__ctl_reply

/* Long epochs (docs/rma.md, "Long epochs"): an operation whose descriptor would equal, field
 * for field, that of an operation of the same origin still pending here, and which cannot
 * conflict with it (it only reads, or is atomic: then so is the other, of the same class),
 * shares that descriptor instead of getting its own. Both are completed by the same message
 * (hrace__rma_complete_ops completes all of an origin's pending operations at once), so the shared
 * descriptor says of every byte what each would have said; memory stays bounded by the
 * number of distinct (origin thread, site, kind) per epoch, not by the number of operations.
 * The index below finds the candidate; it holds the pending operations that may be shared. */
static int shareable(const hrace_access_t *a) {
  return !(a->flags & HRACE_ACC_WRITE) || (a->flags & HRACE_ACC_ATOMIC);
}

static uint64_t merge_hash(const hrace_access_t *a) {
  uint64_t h = hrace_hash_combine(HRACE_HASH_SEED, (uint64_t)(uint32_t)a->rank);
  h = hrace_hash_combine(h, (uint64_t)(uint32_t)a->thread);
  h = hrace_hash_combine(h, a->exporter);
  h = hrace_hash_combine(h, ((uint64_t)a->flags << 16 | a->op) << 32 | a->atomic_class);
  h = hrace_hash_combine(h, (uint64_t)(uintptr_t)a->loc);
  return hrace_hash_combine(h, (uint64_t)(uintptr_t)a->sync);
}

static bool merge_eq(const void *val, const void *arg) {
  const hrace_access_t *a = hrace__access_get((hrace_aid_t)(uintptr_t)val), *b = arg;
  return a->rank == b->rank && a->thread == b->thread && a->exporter == b->exporter &&
         a->flags == b->flags && a->op == b->op && a->atomic_class == b->atomic_class &&
         a->loc == b->loc && a->sync == b->sync &&
         atomic_load_explicit(&a->clk, memory_order_relaxed) == HRACE_CLK_INF;
}

static void push_pending(hrace_win_t *w, int origin, hrace_aid_t aid) {
  if (w->npending == w->cappending) {
    w->cappending = w->cappending ? 2 * w->cappending : 16;
    w->pending = realloc(w->pending, w->cappending * sizeof *w->pending);
    if (!w->pending) abort();
  }
  w->pending[w->npending++] = (hrace_pending_t){ origin, aid };
}

/* Fix the epoch of every operation of h->origin still in flight on w: completed by the thread
 * whose clock entry is h->exporter, at h->complete. (With one thread issuing and another
 * completing, a reader may pair the old entry with the new epoch for an instant.) */
void hrace__rma_complete_ops(hrace_win_t *w, const hrace_msg_t *h) {
  unsigned k = 0;
  for (unsigned i = 0; i < w->npending; i++) {
    if (w->pending[i].origin == h->origin) {
      hrace_access_t *a = hrace__access_get(w->pending[i].aid);
      if (shareable(a))
        hrace_map_remove(&w->merge, merge_hash(a), (void *)(uintptr_t)w->pending[i].aid);
      a->exporter = h->exporter;
      hrace__access_complete(a, h->complete);
    } else
      w->pending[k++] = w->pending[i];
  }
  w->npending = k;
}

/* Apply one operation record: its byte ranges, checked and recorded in the shadow of the
 * segment(s) holding them. The origin has checked the ranges against the window's size
 * already (and named its own line); a dynamic window's regions are known only here. */
void hrace__rma_apply(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                      const hrace_vc_t *view, const hrace_srcloc_t *site) {
  const char *func = site->func, *file = site->file;
  hrace_access_t a = {
    .exporter = h->exporter, .flags = h->flags, .op = h->op,
    .atomic_class = h->atomic_class, .rank = h->origin, .thread = h->thread,
    .loc = site, .sync = hrace__rma_epoch_label(h->epoch),
  };
  atomic_init(&a.clk, HRACE_CLK_INF);   /* in flight until COMPLETE / UNLOCK / DONE */
  int share = shareable(&a);
  uint64_t mh = share ? merge_hash(&a) : 0;
  hrace_aid_t aid = share ? (hrace_aid_t)(uintptr_t)hrace_map_find(&w->merge, mh, merge_eq, &a) : 0;
  int fresh = !aid;
  if (fresh) aid = hrace__access_new(&a);
  uint64_t base = h->disp * (uint64_t)w->disp_unit;
  int outside = 0;
  uint64_t out_lo = 0, out_hi = 0;
  for (uint32_t i = 0; i < h->nranges; i++) {
    uint64_t off = base + ranges[2 * i], len = ranges[2 * i + 1], rel;
    hrace_win_t *s = hrace__win_segment(w, off, len, &rel);
    if (s) {
      hrace__shadow_access(&s->cells, rel, len, aid, view, hrace__race_sink, &s->cells);
      continue;
    }
    if (!outside++) out_lo = off, out_hi = off + len;
    if (w->kind != HRACE_WIN_DYNAMIC && off < w->size)
      hrace__shadow_access(&w->cells, off, w->size - off, aid, view, hrace__race_sink, &w->cells);
  }
  if (outside && w->kind == HRACE_WIN_DYNAMIC)
    hrace__report_misuse(0, "%s from rank %d at %s (%s:%d) accesses addresses [%#llx,%#llx) of "
                         "dynamic window %s at rank %d, where no memory is attached",
                         hrace__op_name(h->op), h->origin, func, file, h->line,
                         (unsigned long long)out_lo, (unsigned long long)out_hi, w->name,
                         hrace__proc.rank);
  else if (outside)
    hrace__report_misuse(0, "%s from rank %d at %s (%s:%d) accesses bytes [%llu,%llu) of window "
                         "%s at rank %d, which has %llu bytes", hrace__op_name(h->op), h->origin,
                         func, file, h->line, (unsigned long long)out_lo,
                         (unsigned long long)out_hi, w->name, hrace__proc.rank,
                         (unsigned long long)w->size);
  if (!fresh) return;                   /* pending already, under the shared descriptor */
  push_pending(w, h->origin, aid);
  if (share) hrace_map_add(&w->merge, mh, (void *)(uintptr_t)aid);
}

/* A record's site comes packed (core/race.h, hrace__site_pack), and unpacking and interning it
 * cost about 575 instructions per record, a sixth of what the target spends on a hash table's
 * record. An origin sends few distinct sites (one per call site and stack), so the last
 * SITE_WAYS of each origin (by rank, modulo SITE_ORIGINS) are remembered by their bytes;
 * interned sites live as long as the process. Under the registry lock, as every handler. */
#define SITE_ORIGINS 64
#define SITE_WAYS 4
#define SITE_MAX 1024   /* longer packed sites are unpacked every time */
static struct site_memo {
  uint32_t len[SITE_WAYS];
  char *bytes[SITE_WAYS];
  const hrace_srcloc_t *site[SITE_WAYS];
  unsigned next;
} site_memo[SITE_ORIGINS];

static const hrace_srcloc_t *site_of(int origin, const char *blob, uint32_t len) {
  struct site_memo *m = &site_memo[(unsigned)origin % SITE_ORIGINS];
  for (unsigned i = 0; i < SITE_WAYS; i++)
    if (m->len[i] == len && m->bytes[i] && !memcmp(m->bytes[i], blob, len)) return m->site[i];
  const hrace_srcloc_t *site = hrace__site_unpack(blob, len);
  if (!site || len > SITE_MAX) return site;
  unsigned k = m->next++ % SITE_WAYS;
  char *copy = realloc(m->bytes[k], len);
  if (!copy) abort();
  memcpy(copy, blob, len);
  m->bytes[k] = copy, m->len[k] = len, m->site[k] = site;
  return site;
}

/* The origin's frames travel as the blob (hrace__site_pack); without them (or malformed)
 * the call's own location stands alone. */
static void on_op(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                  const hrace_clk_t *vc, const char *func, const char *file, const char *blob) {
  hrace_vc_t view = { .n = h->vc_n, .c = (hrace_clk_t *)vc };   /* no local part: remote */
  const hrace_srcloc_t *site = h->blob_len ? site_of(h->origin, blob, h->blob_len) : NULL;
  if (!site) site = hrace__site_intern(func, file, h->line);
  hrace__rma_apply(w, h, ranges, &view, site);
}

static int grantable(const hrace_win_t *w, uint32_t type) {
  if (type == HRACE_LOCK_EXCL) return !w->holders_excl && !w->holders_shared;
  return !w->holders_excl;
}

/* Take the token for `type`; returns the clock the new epoch follows: an exclusive epoch
 * follows every earlier unlock, a shared one only the exclusive ones (shared locks do not
 * order each other). */
static const hrace_vc_t *take(hrace_win_t *w, uint32_t type) {
  if (type == HRACE_LOCK_EXCL) w->holders_excl++;
  else w->holders_shared++;
  return type == HRACE_LOCK_EXCL ? &w->rel_all : &w->rel_excl;
}

/* Give the token of `type` back, depositing the unlocker's clock for later lockers. */
static void give_back(hrace_win_t *w, uint32_t type, const hrace_clk_t *vc, uint32_t n) {
  hrace__vc_join_raw(&w->rel_all, vc, n);
  if (type == HRACE_LOCK_EXCL) {
    hrace__vc_join_raw(&w->rel_excl, vc, n);
    if (w->holders_excl) w->holders_excl--;
  } else if (w->holders_shared) {
    w->holders_shared--;
  }
}

static void grant(hrace_win_t *w, int origin, int tag, uint32_t type) {
  reply(origin, tag, HRACE_MSG_GRANT, take(w, type));
}

static void on_lock(hrace_win_t *w, const hrace_msg_t *h) {
  if (w->nwaiters == 0 && grantable(w, h->lock_type)) {   /* FIFO: nobody overtakes a waiter */
    grant(w, h->origin, h->reply_tag, h->lock_type);
    return;
  }
  if (w->nwaiters == w->capwaiters) {
    w->capwaiters = w->capwaiters ? 2 * w->capwaiters : 8;
    w->waiters = realloc(w->waiters, w->capwaiters * sizeof *w->waiters);
    if (!w->waiters) abort();
  }
  w->waiters[w->nwaiters++] = (hrace_waiter_t){ h->origin, h->reply_tag, (int)h->lock_type };
}

static void on_unlock(hrace_win_t *w, const hrace_msg_t *h, const hrace_clk_t *vc) {
  hrace__rma_complete_ops(w, h);
  give_back(w, h->lock_type, vc, h->vc_n);
  if (h->reply_tag != HRACE_NO_REPLY) reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
  unsigned k = 0;
  while (k < w->nwaiters && grantable(w, (uint32_t)w->waiters[k].type)) {
    grant(w, w->waiters[k].origin, w->waiters[k].reply_tag, (uint32_t)w->waiters[k].type);
    k++;
  }
  if (k) memmove(w->waiters, w->waiters + k, (w->nwaiters - k) * sizeof *w->waiters);   /* NULL: none yet */
  w->nwaiters -= k;
}

/* The process's own token, taken or given back by the calling thread without a message to
 * itself (epoch.c, acquire / release; docs/rma.md, "Synchronisation"). A message to oneself
 * travels on a socket and wakes the progress thread, which shares its rank's core: two
 * context switches in every lock_all / unlock_all. Done here only when the handler would act
 * at once and answer nobody (only a reader of the channel may reply): nobody waits (FIFO: no
 * one overtakes a waiter) and, for a lock, the token is free for `type`; else the caller sends
 * the message as before. A message this process sent itself earlier and that is still unread
 * changes nothing: an UNLOCK of an exclusive hold keeps the token from being free until it is
 * read, so an exclusive request then goes as a message, behind it; one of a shared hold only
 * lowers a count, in whichever order, and deposits nothing a shared locker joins. Caller
 * holds the registry lock. */
int hrace__lock_self(hrace_win_t *w, uint32_t type, hrace_vc_t *got) {
  if (w->nwaiters || !grantable(w, type)) return 0;
  hrace__vc_join(got, take(w, type));
  return 1;
}

int hrace__unlock_self(hrace_win_t *w, uint32_t type, const hrace_vc_t *clock) {
  if (w->nwaiters) return 0;
  give_back(w, type, clock->c, clock->n);
  return 1;
}

/* PSCW (docs/rma.md, "Synchronisation"): a DONE completes the origin's operations and deposits
 * its clock for the application thread waiting in MPI_Win_wait, a POST deposits the target's
 * clock for MPI_Win_start (pscw.c); a DONE to a single target wants no reply. */
static void on_done(hrace_win_t *w, const hrace_msg_t *h, const hrace_clk_t *vc) {
  hrace__done_apply(w, h, vc, h->vc_n);
  if (h->reply_tag != HRACE_NO_REPLY) reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
}

static __thread int on_progress;   /* this is the progress thread */

/* Returns 0 to stop. */
static int handle_ctl(void *buf, int n, int source) {
  hrace_msg_t *h;
  uint64_t *ranges;
  hrace_clk_t *vc;
  const char *func, *file, *blob;
  if (hrace__msg_unpack(buf, n, &h, &ranges, &vc, &func, &file, &blob)) {
    hrace__warn("protocol error: malformed message of %d bytes from rank %d dropped", n, source);
    return 1;
  }
  switch (h->type) {   /* messages about no window */
  case HRACE_MSG_STOP:
    if (on_progress) return 0;
    /* A waiting thread read it (hrace__chan_help): it is the progress thread's. */
    raw_send(hrace__proc.rank, h, NULL, NULL, NULL, NULL, NULL);
    return 1;
  case HRACE_MSG_PING: reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL); return 1;
  case HRACE_MSG_PSIG: hrace__annotate_on_psig(h, vc); return 1;
  default: break;
  }
  hrace_win_t *w = hrace__win_by_id(h->win);
  if (!w) {
    /* An UNLOCK that wants no reply may arrive after the window was freed here (epoch.c,
     * release: nothing orders its delivery before MPI_Win_free): nothing is left to unlock. */
    if (h->type == HRACE_MSG_UNLOCK && h->reply_tag == HRACE_NO_REPLY) return 1;
    /* Else only an erroneous program gets here (operation on a window already freed at the target). */
    hrace__warn("message %u for unknown window id %u from rank %d dropped", h->type, h->win, source);
    if ((h->type == HRACE_MSG_COMPLETE && h->reply_tag != HRACE_NO_REPLY) ||
        (h->type == HRACE_MSG_DONE && h->reply_tag != HRACE_NO_REPLY) ||
        (h->type == HRACE_MSG_UNLOCK && h->reply_tag != HRACE_NO_REPLY) ||
        h->type == HRACE_MSG_RSIG)
      reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
    else if (h->type == HRACE_MSG_LOCK || h->type == HRACE_MSG_RWAIT)
      reply(h->origin, h->reply_tag, HRACE_MSG_GRANT, NULL);
    return 1;
  }
  switch (h->type) {
  case HRACE_MSG_OP: on_op(w, h, ranges, vc, func, file, blob); break;
  case HRACE_MSG_COMPLETE:
    hrace__rma_complete_ops(w, h);
    if ((h->flags & HRACE_COMPLETE_FENCE) && h->fgen == w->fgen) w->fence_got++;
    if (h->reply_tag != HRACE_NO_REPLY) reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
    break;
  case HRACE_MSG_LOCK: on_lock(w, h); break;
  case HRACE_MSG_UNLOCK: on_unlock(w, h, vc); break;
  case HRACE_MSG_DONE: on_done(w, h, vc); break;
  case HRACE_MSG_POST: hrace__post_apply(w, h, vc); break;
  case HRACE_MSG_FWD: hrace__shared_apply(w, h, ranges, vc, blob); break;
  case HRACE_MSG_RSIG: hrace__annotate_on_rsig(w, h, ranges, vc); break;
  case HRACE_MSG_RWAIT: hrace__annotate_on_rwait(w, h, ranges); break;
  default: hrace__warn("protocol error: message type %u from rank %d dropped", h->type, source);
  }
  return 1;
}

/* ---- fence generations ------------------------------------------------------------------
 *
 * A fence's COMPLETEs are not acknowledged (epoch.c, fence_exchange): a target applies them
 * before its own MPI_Win_fence returns, but a member that left the fence's collective earlier
 * may already send it the next epoch's records, lock requests, posts or forwarded accesses,
 * on a connection read before the one that brings a third member's records of the epoch
 * before. Applied in that order, a later write would be overwritten in the shadow by an
 * earlier one, and the earlier one would be judged against the later one. So a message about
 * a window that carries a fence generation (protocol.h, fgen) beyond the window's here is held
 * back, and so is every later message of the same sender (one connection carries them in
 * issue order: a PING must not be answered before what it follows is applied), until the
 * fencing thread has left the fence (hrace__ctl_release_held). Messages from this process to
 * itself (STOP) are never held. Under the registry lock. */
typedef struct held {
  int source;
  int bytes;
  void *buf;
} held_t;
static held_t *held;
static unsigned nheld, capheld;
static unsigned *held_from;   /* per world rank: its messages held back */

static int from_later_fence(const void *buf, size_t bytes) {
  if (bytes < sizeof(hrace_msg_t)) return 0;
  const hrace_msg_t *h = buf;
  hrace_win_t *w = h->win ? hrace__win_by_id(h->win) : NULL;
  return w && (int32_t)(h->fgen - w->fgen) > 0;
}

static int must_hold(const void *buf, size_t bytes, int source) {
  if (source == hrace__proc.rank || source < 0 || source >= hrace__proc.size) return 0;
  return (held_from && held_from[source]) || from_later_fence(buf, bytes);
}

static void hold(const void *buf, size_t bytes, int source) {
  if (!held_from && !(held_from = calloc((size_t)hrace__proc.size, sizeof *held_from))) abort();
  if (nheld == capheld) {
    capheld = capheld ? 2 * capheld : 16;
    if (!(held = realloc(held, capheld * sizeof *held))) abort();
  }
  void *copy = malloc(bytes ? bytes : 1);
  if (!copy) abort();
  memcpy(copy, buf, bytes);
  held[nheld++] = (held_t){ source, (int)bytes, copy };
  held_from[source]++;
}

static int handle_ctl(void *buf, int n, int source);

void hrace__ctl_release_held(void) {
  if (!nheld) return;
  for (unsigned i = 0; i < nheld; i++) held_from[held[i].source] = 0;
  unsigned k = 0;
  for (unsigned i = 0; i < nheld; i++) {
    held_t e = held[i];
    if (held_from[e.source] || from_later_fence(e.buf, (size_t)e.bytes)) {
      held[k++] = e;
      held_from[e.source]++;
      continue;
    }
    handle_ctl(e.buf, e.bytes, e.source);
    free(e.buf);
  }
  nheld = k;
}

/* One request from the channel (core/chan.h), on the progress thread or on a thread that
 * waits inside a call and reads the channel itself (hrace__chan_help). Returns 0 to stop.
 * Requests lie back to back in the channel's buffer, at any byte offset, and
 * hrace__msg_unpack reads the header and the arrays after it in place: a request not aligned
 * for them is first copied into a scratch buffer that is (one thread at a time runs handle,
 * under the channel's reader lock, never nested). */
static int handle(void *buf, size_t bytes, int source, int32_t tag) {
  static void *scratch;
  static size_t scratch_cap;
  if (tag == HRACE_CHAN_SYNCQ) {
    hrace__ssend_on_query(buf, bytes, source);
    return 1;
  }
  if (tag == HRACE_CHAN_SITEQ) {
    hrace__mrace_on_query(buf, bytes, source);
    return 1;
  }
  if ((uintptr_t)buf % _Alignof(hrace_msg_t)) {
    if (bytes > scratch_cap) {
      free(scratch);
      scratch_cap = bytes > 2 * scratch_cap ? bytes : 2 * scratch_cap;
      scratch = malloc(scratch_cap);
      if (!scratch) abort();
    }
    buf = memcpy(scratch, buf, bytes);
  }
  hrace__win_lock();
  int go = 1;
  if (must_hold(buf, bytes, source)) hold(buf, bytes, source);
  else go = handle_ctl(buf, (int)bytes, source);
  hrace__win_broadcast();
  hrace__win_unlock();
  return go;
}

static pthread_t progress;
static int progress_running;

static _Atomic int progress_ran;

static void *progress_main(void *arg) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);   /* the application's handlers run on its threads */
  hrace__thread()->depth = 1;               /* nothing here is the application's */
  on_progress = 1;
  atomic_store_explicit(&progress_ran, 1, memory_order_release);
  hrace__chan_serve(handle);                /* sleeps in poll() while nothing arrives */
  return NULL;
}

/* core/hooks.h, hrace__progress_hook: MPI_Init starts the progress thread, MPI_Finalize stops
 * it (mpi/init.c). */
static void progress_start(void) {
  if (pthread_create(&progress, NULL, progress_main, NULL))
    hrace__fatal("cannot start the progress thread: %s", strerror(errno));
  progress_running = 1;
  /* MPI_Init returns once the thread has run: a new thread's first turn on a busy core comes
   * late (the scheduler starts it behind the threads that run there), and the first request
   * of a short program met it, 0.3-3.6 ms into its first lock_all on a loaded machine; a
   * thread woken from its sleep in poll() is run at once (bench/README.md, "Session 13: the
   * whole epoch"). */
  while (!atomic_load_explicit(&progress_ran, memory_order_acquire)) sched_yield();
}

static void progress_stop(void) {
  if (!progress_running) return;
  hrace_msg_t h = { .type = HRACE_MSG_STOP, .origin = hrace__proc.rank };
  raw_send(hrace__proc.rank, &h, NULL, NULL, NULL, NULL, NULL);
  pthread_join(progress, NULL);
  progress_running = 0;
}

static void progress_up(int up) {
  if (up) progress_start();
  else progress_stop();
}
__attribute__((constructor)) static void register_progress(void) { hrace__progress_hook = progress_up; }
