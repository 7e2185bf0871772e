/* RMA synchronisation: passive target (lock / unlock, lock_all / unlock_all, flush*) and fence
 * (the handlers of their generated wrappers, wrappers.def class "epoch"). Edges (docs/rma.md, "Synchronisation"):
 *
 *   call                 clock action                               completion
 *   lock(type, t)        token from t's progress thread; join the   -
 *                        clock released there (excl: all unlocks,
 *                        shared: exclusive unlocks)
 *   unlock(t)            deposit clock at t, then tick              remote + local, ops to t
 *   lock_all / unlock_all  shared lock / unlock on every target      remote + local, all ops
 *   flush(t), flush_all  none (completion is not synchronisation)   remote + local
 *   flush_local(_all)    none                                       local only (buffers)
 *   fence                all-to-all over the window group           remote + local, all ops
 *                        (one allreduce on the window's shadow,     (unacknowledged COMPLETEs,
 *                        with the completion counts)                applied by their targets
 *                                                                   before they leave: below)
 *   fence(NOPRECEDE)     publish only: the new epoch's operations   (nothing may be pending)
 *                        follow every member's fence, the caller
 *                        does not (MPI-3.1 Sec. 11.5.1)
 *   Win_sync             none: it orders memory views, not processes (Sec. 11.7)
 *
 * hrace takes the token before MPI's lock and returns it after MPI's unlock, so the order in
 * which it grants exclusive epochs is the order MPI runs them in. Misuse is diagnosed before
 * the real call, which may answer it with an error or abort the job. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "core/chan.h"
#include "core/hb.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/buffers.h"
#include "rma/protocol.h"
#include "rma/rma.h"
#include "rma/shared.h"
#include "wrappers.h"

/* Take the token of `type` at each target in [lo, hi) and join what it releases. Every request
 * goes out before the first grant is awaited (lock_all: one round trip, not one per target);
 * the grants are joined together, before the call returns, as one after another were. */
static void acquire(hrace_win_t *w, int lo, int hi, uint32_t type) {
  hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_LOCK);
  h.lock_type = type;
  hrace_vc_t got;
  hrace__vc_init(&got, hrace__clock_len());
  int me = hrace__proc.rank, self = 0;   /* our own token taken in place (progress.c) */
  for (int t = lo; t < hi; t++) {
    if (hrace__win_world(w, t) == me) {
      hrace__win_lock();
      self = hrace__lock_self(w, type, &got);
      hrace__win_unlock();
      if (self) continue;
    }
    hrace__ctl_send(hrace__win_world(w, t), &h, NULL, NULL, NULL, NULL);
  }
  for (int t = lo; t < hi; t++)
    if (!self || hrace__win_world(w, t) != me)
      hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_GRANT, &got);
  hrace__wait(got.c, got.n, type == HRACE_LOCK_EXCL ? "MPI_Win_lock(exclusive)" : "MPI_Win_lock(shared)");
  hrace__vc_free(&got);
}

/* Return the tokens at [lo, hi), completing our operations there; then tick (docs/rma.md,
 * "Synchronisation", "Unlocks without acknowledgement"). An UNLOCK deposits our clock at its
 * target, for the target's later lockers to join; it wants no reply:
 *  - the token: a later locker there is granted only once the UNLOCK arrived (one connection
 *    per origin and target, in order), and our own next request there follows it;
 *  - the completion of our operations at ourselves: their records were applied by their
 *    issuing threads, and so is their completion, here and now;
 *  - one target with records and nothing else: the UNLOCK completes them there, and like a
 *    flush's COMPLETE, the next publication of our clock pings the target first
 *    (hrace__shared_late_complete); the clock it deposits covers only that completion, which
 *    the target applies just before it;
 *  - several targets, some of them other processes with records: the clock deposited at one
 *    covers the completion at every other, so a locker that joins it could reach one of those
 *    before its records were completed there. Acknowledged COMPLETEs to those targets go
 *    first (all sent before the first reply is awaited), the UNLOCKs after them;
 *  - targets without records: nothing to complete, the UNLOCK alone. */
static void release(hrace_win_t *w, int lo, int hi, const char *why) {
  const hrace_vc_t *clock = hrace__signal_clock();
  int me = hrace__proc.rank, dirty = 0, last = -1;
  pthread_mutex_lock(&w->omu);
  hrace_msg_t c = hrace__rma_msg(w, HRACE_MSG_COMPLETE);
  for (int t = lo; t < hi; t++) {
    if (!w->dirty[t]) continue;
    if (hrace__win_world(w, t) == me) {
      hrace__win_lock();
      hrace__rma_complete_ops(w, &c);
      hrace__win_broadcast();
      hrace__win_unlock();
      w->dirty[t] = 0;
      continue;
    }
    dirty++;
    last = t;
  }
  int late = dirty == 1 && hi - lo == 1;
  if (dirty && !late) {
    for (int t = lo; t < hi; t++)
      if (w->dirty[t]) hrace__ctl_send(hrace__win_world(w, t), &c, NULL, NULL, NULL, NULL);
    for (int t = lo; t < hi; t++)
      if (w->dirty[t]) hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_ACK, NULL);
  }
  for (int t = lo; t < hi; t++) {
    int self = 0;
    if (hrace__win_world(w, t) == me) {   /* in place when nobody waits (progress.c) */
      hrace__win_lock();
      self = hrace__unlock_self(w, w->lock[t], clock);
      hrace__win_unlock();
    }
    hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_UNLOCK);
    h.lock_type = w->lock[t];
    h.reply_tag = HRACE_NO_REPLY;
    if (!self) hrace__ctl_send(hrace__win_world(w, t), &h, NULL, clock, NULL, NULL);
    w->lock[t] = HRACE_LOCK_NONE;
    w->dirty[t] = 0;
  }
  if (late) hrace__shared_late_complete(hrace__win_world(w, last));
  pthread_mutex_unlock(&w->omu);
  hrace__buffers_complete(w, lo + 1 == hi ? lo : -1);
  hrace__signal_done(why);
}

static int valid_target(const hrace_win_t *w, int target) { return target >= 0 && target < w->gsize; }

/* What each call needs of the origin's epoch state on w (MPI-3.1 Sec. 11.5; target -1: every
 * rank, for flush_all / flush_local_all), and what the handlers change after the real call:
 *
 *   call              valid when                                   then
 *   lock(t)           t not locked, not in lock_all                lock[t] = type
 *   unlock(t)         lock[t] held, not in lock_all                lock[t] = NONE, dirty[t] = 0
 *   lock_all          no lock held at all                          lock[*] = SHARED, lock_all
 *   unlock_all        in lock_all                                  lock[*] = NONE, !lock_all
 *   flush*(t)         lock_all or lock[t] (-1: any lock)           dirty[t] = 0 (flush, not _local)
 *   fence(NOPRECEDE)  no dirty[t]: nothing issued to complete      fence_epoch = !NOSUCCEED
 *   post / start      not posted / not started (pscw.c)            posted / started
 *   complete          started                                      !started, dirty[t] = 0 for t
 *                                                                  in the start group
 *   wait / test       posted                                       !posted (test: once done)
 *
 * A target outside the group is left to MPI's own error (HRACE_EV_TARGET). */
int hrace__epoch_check(const hrace_win_t *w, int call, int target) {
  int any = 0;
  switch (call) {
  case HRACE_EC_LOCK:
    if (!valid_target(w, target)) return HRACE_EV_TARGET;
    return w->lock[target] || w->lock_all ? HRACE_EV_NESTED : HRACE_EV_OK;
  case HRACE_EC_UNLOCK:
    if (!valid_target(w, target)) return HRACE_EV_TARGET;
    return w->lock[target] && !w->lock_all ? HRACE_EV_OK : HRACE_EV_NOT_OPEN;
  case HRACE_EC_LOCK_ALL:
    any = w->lock_all;
    for (int t = 0; t < w->gsize && !any; t++) any = w->lock[t] != HRACE_LOCK_NONE;
    return any ? HRACE_EV_NESTED : HRACE_EV_OK;
  case HRACE_EC_UNLOCK_ALL:
    return w->lock_all ? HRACE_EV_OK : HRACE_EV_NOT_OPEN;
  case HRACE_EC_FLUSH:
    if (target >= 0 && !valid_target(w, target)) return HRACE_EV_TARGET;
    any = w->lock_all || (target >= 0 && w->lock[target]);
    for (int t = 0; t < w->gsize && target < 0 && !any; t++) any = w->lock[t] != 0;
    return any ? HRACE_EV_OK : HRACE_EV_NOT_OPEN;
  case HRACE_EC_FENCE_NOPRECEDE:
    for (int t = 0; t < w->gsize; t++) any |= w->dirty[t];
    return any ? HRACE_EV_PENDING : HRACE_EV_OK;
  case HRACE_EC_POST: return w->posted ? HRACE_EV_NESTED : HRACE_EV_OK;
  case HRACE_EC_START: return w->started ? HRACE_EV_NESTED : HRACE_EV_OK;
  case HRACE_EC_COMPLETE: return w->started ? HRACE_EV_OK : HRACE_EV_NOT_OPEN;
  case HRACE_EC_WAIT: return w->posted ? HRACE_EV_OK : HRACE_EV_NOT_OPEN;
  }
  return HRACE_EV_OK;
}

int hrace__h_win_lock(int type, int target, int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  int ok = w && valid_target(w, target) && (type == MPI_LOCK_EXCLUSIVE || type == MPI_LOCK_SHARED);
  if (ok && hrace__epoch_check(w, HRACE_EC_LOCK, target) == HRACE_EV_NESTED) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_lock on rank %d of window %s, which this "
                         "process has locked already", target, w->name);
    ok = 0;
  }
  uint32_t t = type == MPI_LOCK_EXCLUSIVE ? HRACE_LOCK_EXCL : HRACE_LOCK_SHARED;
  if (ok) acquire(w, target, target + 1, t);
  int rc = PMPI_Win_lock(type, target, assert, win);
  if (ok) {
    w->lock[target] = (uint8_t)t;
    if (rc != MPI_SUCCESS) release(w, target, target + 1, "failed MPI_Win_lock");
  }
  return rc;
}

int hrace__h_win_unlock(int target, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  int verdict = w ? hrace__epoch_check(w, HRACE_EC_UNLOCK, target) : HRACE_EV_TARGET;
  int held = verdict == HRACE_EV_OK;
  if (verdict == HRACE_EV_NOT_OPEN)
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_unlock of rank %d on window %s without a "
                         "matching MPI_Win_lock", target, w->name);
  int rc = PMPI_Win_unlock(target, win);
  if (held && rc == MPI_SUCCESS) release(w, target, target + 1, "MPI_Win_unlock");
  return rc;
}

int hrace__h_win_lock_all(int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w) {
    if (hrace__epoch_check(w, HRACE_EC_LOCK_ALL, -1) == HRACE_EV_NESTED) {
      hrace__report_misuse(hrace__caller(ret), "MPI_Win_lock_all on window %s while this process "
                           "holds a lock on it", w->name);
      w = NULL;
    }
  }
  if (w) acquire(w, 0, w->gsize, HRACE_LOCK_SHARED);
  int rc = PMPI_Win_lock_all(assert, win);
  if (w) {
    for (int t = 0; t < w->gsize; t++) w->lock[t] = HRACE_LOCK_SHARED;
    if (rc == MPI_SUCCESS) w->lock_all = 1;
    else release(w, 0, w->gsize, "failed MPI_Win_lock_all");
  }
  return rc;
}

int hrace__h_win_unlock_all(MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_UNLOCK_ALL, -1) == HRACE_EV_NOT_OPEN) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_unlock_all on window %s without MPI_Win_lock_all", w->name);
    w = NULL;
  }
  int rc = PMPI_Win_unlock_all(win);
  if (w && rc == MPI_SUCCESS) {
    release(w, 0, w->gsize, "MPI_Win_unlock_all");
    w->lock_all = 0;
  }
  return rc;
}

/* Flushes are valid only inside a passive-target epoch (MPI-3.1 Sec. 11.5.4). */
static hrace_win_t *flush_window(MPI_Win win, int target, const char *what, uintptr_t pc) {
  hrace_win_t *w = hrace__win_of(win);
  if (!w) return NULL;
  int verdict = hrace__epoch_check(w, HRACE_EC_FLUSH, target);
  if (verdict == HRACE_EV_TARGET) return NULL;
  if (verdict == HRACE_EV_NOT_OPEN) {
    if (target >= 0)
      hrace__report_misuse(pc, "%s(%d) on window %s outside a passive-target epoch on that rank "
                           "(no MPI_Win_lock / MPI_Win_lock_all)", what, target, w->name);
    else
      hrace__report_misuse(pc, "%s on window %s outside a passive-target epoch (no MPI_Win_lock "
                           "/ MPI_Win_lock_all)", what, w->name);
  }
  return w;
}

/* A flush first applies the quiet COMPLETEs and records other processes' flushes left in this
 * process's rings (core/chan.h, hrace__chan_serve_quiet; ops.c, hrace__rma_complete_remote):
 * a program that flushes per operation is usually the target of others that do, and this
 * thread, about to wait inside MPI, applies them without a wake-up of the progress thread.
 * Nothing is held here that a handler takes. */
int hrace__h_win_flush(int target, MPI_Win win, int active, uintptr_t ret) {
  if (active) hrace__chan_serve_quiet();
  hrace_win_t *w = active ? flush_window(win, target, "MPI_Win_flush", hrace__caller(ret)) : NULL;
  int rc = PMPI_Win_flush(target, win);
  if (w && rc == MPI_SUCCESS) hrace__rma_complete(w, target);
  return rc;
}

int hrace__h_win_flush_all(MPI_Win win, int active, uintptr_t ret) {
  if (active) hrace__chan_serve_quiet();
  hrace_win_t *w = active ? flush_window(win, -1, "MPI_Win_flush_all", hrace__caller(ret)) : NULL;
  int rc = PMPI_Win_flush_all(win);
  if (w && rc == MPI_SUCCESS) hrace__rma_complete(w, -1);
  return rc;
}

int hrace__h_win_flush_local(int target, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? flush_window(win, target, "MPI_Win_flush_local", hrace__caller(ret)) : NULL;
  int rc = PMPI_Win_flush_local(target, win);
  if (w && rc == MPI_SUCCESS) hrace__rma_complete_local(w, target);
  return rc;
}

int hrace__h_win_flush_local_all(MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? flush_window(win, -1, "MPI_Win_flush_local_all", hrace__caller(ret)) : NULL;
  int rc = PMPI_Win_flush_local_all(win);
  if (w && rc == MPI_SUCCESS) hrace__rma_complete_local(w, -1);
  return rc;
}

/* A fence's remote completion: an unacknowledged COMPLETE to every target with records
 * (sent[t] = 1), after those records on the same connection. The fence's all-reduce then tells
 * each target how many to expect, and the target applies them before its fence returns
 * (fence_collect): no origin waits on a busy target, and nobody waits for a progress thread
 * to be scheduled (docs/rma.md, "Synchronisation"). */
static void fence_complete(hrace_win_t *w, uint8_t *sent) {
  hrace__rma_dup_reset();
  pthread_mutex_lock(&w->omu);
  hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_COMPLETE);
  h.reply_tag = HRACE_NO_REPLY;
  h.flags = HRACE_COMPLETE_FENCE;
  for (int t = 0; t < w->gsize; t++) {
    sent[t] = 0;
    if (!w->dirty[t]) continue;
    int world = hrace__win_world(w, t);
    if (world != hrace__proc.rank) {
      hrace__ctl_send(world, &h, NULL, NULL, NULL, NULL);
      sent[t] = 1;
    } else {
      /* Operations on ourselves were applied by their issuing threads: so is their completion. */
      hrace__win_lock();
      hrace__rma_complete_ops(w, &h);
      hrace__win_broadcast();
      hrace__win_unlock();
    }
    w->dirty[t] = 0;
  }
  pthread_mutex_unlock(&w->omu);
  hrace__buffers_complete(w, -1);
}

/* The fence's all-reduce works on one element of w->fence_dt: { n, len }, then n clock entries
 * (reduced by max: every member's clock), then one count per group member (summed: how many
 * fence COMPLETEs were sent to it). One collective carries both; a reduce_scatter of the counts
 * beside the clock all-reduce would be a second one per fence. */
static void fence_reduce(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const uint32_t *a = in;
  uint32_t *b = inout;
  for (int k = 0; k < *len; k++) {
    uint32_t n = b[0], all = b[1];
    for (uint32_t i = 2; i < 2 + n; i++)
      if (a[i] > b[i]) b[i] = a[i];
    for (uint32_t i = 2 + n; i < all; i++) b[i] += a[i];
    a += all, b += all;
  }
}

static MPI_Op fence_op;
static pthread_once_t fence_op_once = PTHREAD_ONCE_INIT;
static void fence_op_create(void) { PMPI_Op_create(fence_reduce, 1, &fence_op); }

/* After the all-reduce: apply the `expect` fence COMPLETEs sent here, reading our own channel
 * (their senders wrote them before they entered the all-reduce, so on one host they are in our
 * rings or sockets already), then raise the window's fence generation and handle what later fences
 * sent meanwhile (progress.c, "Fence generations"). */
static void fence_collect(hrace_win_t *w, uint32_t expect) {
  long waited = 0;
  int told = 0;
  hrace__win_lock();
  while (w->fence_got < expect) {
    hrace__win_unlock();
    int got = hrace__chan_help(1);
    hrace__win_lock();
    if (got || w->fence_got >= expect) continue;
    if (hrace__win_wait(1) == ETIMEDOUT) waited++;
    if (!told && waited >= 10000) {
      hrace__warn("MPI_Win_fence on window %s has waited 10 s for %u of the %u completions sent "
                  "to it", w->name, expect - w->fence_got, expect);
      told = 1;
    }
  }
  w->fence_got = 0;
  __atomic_store_n(&w->fgen, w->fgen + 1, __ATOMIC_RELAXED);
  hrace__ctl_release_held();
  hrace__win_broadcast();
  hrace__win_unlock();
}

/* Every member's clock to every member, and the completion counts (fence_reduce). A fence
 * joins the clocks; a NOPRECEDE fence only publishes: nobody joins them, the epoch's
 * operations carry the join instead (fence_vc). */
static void fence_exchange(hrace_win_t *w, const uint8_t *sent, int join, const char *why) {
  uint32_t n = hrace__clock_len(), all = 2 + n + (uint32_t)w->gsize;
  uint32_t stackbuf[512];
  uint32_t *buf = all <= 512 ? stackbuf : malloc(all * sizeof *buf);
  if (!buf) abort();
  buf[0] = n, buf[1] = all;
  hrace__signal_clock_out(buf + 2);
  for (int t = 0; t < w->gsize; t++) buf[2 + n + t] = sent[t];
  pthread_once(&fence_op_once, fence_op_create);
  if (w->fence_dt == MPI_DATATYPE_NULL) {
    PMPI_Type_contiguous((int)all, MPI_UINT32_T, &w->fence_dt);
    PMPI_Type_commit(&w->fence_dt);
  }
  PMPI_Allreduce(MPI_IN_PLACE, buf, 1, w->fence_dt, fence_op, w->shadow);
  if (join) {
    hrace__wait(buf + 2, n, why);
  } else {
    hrace_vc_t got = { .n = n, .c = buf + 2 };
    pthread_mutex_lock(&w->omu);
    hrace__vc_copy(&w->fence_vc, &got);
    w->fence_view = 1;
    pthread_mutex_unlock(&w->omu);
  }
  hrace__signal_done(why);
  uint32_t expect = buf[2 + n + w->grank];
  if (buf != stackbuf) free(buf);
  fence_collect(w, expect);
}

int hrace__h_win_fence(int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w && (assert & MPI_MODE_NOPRECEDE)) {
    if (hrace__epoch_check(w, HRACE_EC_FENCE_NOPRECEDE, -1) == HRACE_EV_PENDING)
      hrace__report_misuse(hrace__caller(ret), "MPI_Win_fence(MPI_MODE_NOPRECEDE) on window %s, "
                           "but this process issued RMA operations since the previous fence "
                           "(the assertion says none are to be completed)", w->name);
  }
  int rc = PMPI_Win_fence(assert, win);
  if (w && rc == MPI_SUCCESS) {
    uint8_t small[64], *sent = w->gsize <= 64 ? small : malloc((size_t)w->gsize);
    if (!sent) abort();
    fence_complete(w, sent);
    if (assert & MPI_MODE_NOPRECEDE) {
      fence_exchange(w, sent, 0, "MPI_Win_fence(MPI_MODE_NOPRECEDE)");
    } else {
      fence_exchange(w, sent, 1, "MPI_Win_fence");
      w->fence_view = 0;
    }
    if (sent != small) free(sent);
    w->fence_epoch = !(assert & MPI_MODE_NOSUCCEED);
  }
  return rc;
}
