/* RMA synchronisation: passive target (lock / unlock, lock_all / unlock_all, flush) and
 * fence. Edges (DESIGN "RMA synchronisation", seed 001 Table III, seed 003):
 *
 *   call                 clock action                               completion
 *   lock(type, t)        token from t's progress thread; join the   -
 *                        clock released there (excl: all unlocks,
 *                        shared: exclusive unlocks)
 *   unlock(t)            deposit clock at t, then tick              ops to t, acked
 *   lock_all / unlock_all  shared lock / unlock on every target      ops to all, acked
 *   flush(t), flush_all  none (completion is not synchronisation)   ops to t / all, acked
 *   fence                all-to-all over the window group           all ops, acked
 *
 * hrace takes the token before MPI's lock and returns it after MPI's unlock, so the order in
 * which it grants exclusive epochs is the order MPI runs them in. */
#include <stdlib.h>

#include "core/runtime.h"
#include "mpi/sync.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/protocol.h"
#include "rma/rma.h"

static hrace_msg_t msg(const hrace_win_t *w, uint32_t type) {
  return (hrace_msg_t){ .type = type, .win = w->id, .origin = hrace__proc.rank,
                        .thread = hrace__thread()->tid, .reply_tag = hrace__thread()->reply_tag,
                        .complete = hrace__thread_epoch() };
}

void hrace__rma_complete(hrace_win_t *w, int target) {
  int lo = target < 0 ? 0 : target, hi = target < 0 ? w->gsize : target + 1;
  hrace_msg_t h = msg(w, HRACE_MSG_COMPLETE);
  for (int t = lo; t < hi; t++)
    if (w->dirty[t]) hrace__ctl_send(hrace__win_world(w, t), &h, NULL, NULL, NULL, NULL);
  for (int t = lo; t < hi; t++)
    if (w->dirty[t]) {
      hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_ACK, NULL);
      w->dirty[t] = 0;
    }
}

/* Take the token of `type` at each target in [lo, hi) and join what it releases. */
static void acquire(hrace_win_t *w, int lo, int hi, uint32_t type) {
  hrace_msg_t h = msg(w, HRACE_MSG_LOCK);
  h.lock_type = type;
  hrace_vc_t got;
  hrace__vc_init(&got, hrace__proc.vc.n);
  for (int t = lo; t < hi; t++) {
    hrace__ctl_send(hrace__win_world(w, t), &h, NULL, NULL, NULL, NULL);
    hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_GRANT, &got);
  }
  hrace__wait(got.c, got.n, type == HRACE_LOCK_EXCL ? "MPI_Win_lock(exclusive)" : "MPI_Win_lock(shared)");
  hrace__vc_free(&got);
}

/* Return the tokens at [lo, hi), completing our operations there; then tick. */
static void release(hrace_win_t *w, int lo, int hi, const char *why) {
  for (int t = lo; t < hi; t++) {
    hrace_msg_t h = msg(w, HRACE_MSG_UNLOCK);
    h.lock_type = w->lock[t];
    hrace__ctl_send(hrace__win_world(w, t), &h, NULL, hrace__signal_clock(), NULL, NULL);
  }
  for (int t = lo; t < hi; t++) {
    hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_ACK, NULL);
    w->lock[t] = HRACE_LOCK_NONE;
    w->dirty[t] = 0;
  }
  hrace__signal_done(why);
}

HRACE_EXPORT int MPI_Win_lock(int type, int target, int assert, MPI_Win win) {
  HRACE_ENTER();
  hrace_win_t *w = HRACE_ACTIVE() ? hrace__win_of(win) : NULL;
  int ok = w && target >= 0 && target < w->gsize && !w->lock[target] && !w->lock_all &&
           (type == MPI_LOCK_EXCLUSIVE || type == MPI_LOCK_SHARED);
  if (w && target >= 0 && target < w->gsize && (w->lock[target] || w->lock_all))
    hrace__report_misuse(HRACE_RET_ADDR(), "MPI_Win_lock on rank %d of window %s, which this "
                         "process has locked already", target, w->name);
  uint32_t t = type == MPI_LOCK_EXCLUSIVE ? HRACE_LOCK_EXCL : HRACE_LOCK_SHARED;
  if (ok) acquire(w, target, target + 1, t);
  int rc = PMPI_Win_lock(type, target, assert, win);
  if (ok && rc == MPI_SUCCESS) w->lock[target] = (uint8_t)t;
  else if (ok) { w->lock[target] = (uint8_t)t; release(w, target, target + 1, "failed MPI_Win_lock"); }
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_unlock(int target, MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Win_unlock(target, win);
  hrace_win_t *w = HRACE_ACTIVE() && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w && target >= 0 && target < w->gsize) {
    if (w->lock[target]) release(w, target, target + 1, "MPI_Win_unlock");
    else hrace__report_misuse(HRACE_RET_ADDR(), "MPI_Win_unlock of rank %d on window %s without "
                              "a matching MPI_Win_lock", target, w->name);
  }
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_lock_all(int assert, MPI_Win win) {
  HRACE_ENTER();
  hrace_win_t *w = HRACE_ACTIVE() ? hrace__win_of(win) : NULL;
  if (w && w->lock_all) {
    hrace__report_misuse(HRACE_RET_ADDR(), "MPI_Win_lock_all on window %s inside a lock_all epoch", w->name);
    w = NULL;
  }
  if (w) acquire(w, 0, w->gsize, HRACE_LOCK_SHARED);
  int rc = PMPI_Win_lock_all(assert, win);
  if (w) {
    for (int t = 0; t < w->gsize; t++) w->lock[t] = HRACE_LOCK_SHARED;
    if (rc == MPI_SUCCESS) w->lock_all = 1;
    else release(w, 0, w->gsize, "failed MPI_Win_lock_all");
  }
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_unlock_all(MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Win_unlock_all(win);
  hrace_win_t *w = HRACE_ACTIVE() && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w && w->lock_all) {
    release(w, 0, w->gsize, "MPI_Win_unlock_all");
    w->lock_all = 0;
  } else if (w) {
    hrace__report_misuse(HRACE_RET_ADDR(), "MPI_Win_unlock_all on window %s without MPI_Win_lock_all", w->name);
  }
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_flush(int target, MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Win_flush(target, win);
  hrace_win_t *w = HRACE_ACTIVE() && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w && target >= 0 && target < w->gsize) hrace__rma_complete(w, target);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_flush_all(MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Win_flush_all(win);
  hrace_win_t *w = HRACE_ACTIVE() && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w) hrace__rma_complete(w, -1);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Win_fence(int assert, MPI_Win win) {
  HRACE_ENTER();
  int rc = PMPI_Win_fence(assert, win);
  hrace_win_t *w = HRACE_ACTIVE() && rc == MPI_SUCCESS ? hrace__win_of(win) : NULL;
  if (w) {
    hrace__rma_complete(w, -1);
    hrace__sync_all(w->shadow, NULL, 0, "MPI_Win_fence");
    w->fence_epoch = !(assert & MPI_MODE_NOSUCCEED);
  }
  HRACE_LEAVE();
  return rc;
}
