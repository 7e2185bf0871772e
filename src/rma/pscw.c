/* General active-target synchronisation: post / start / complete / wait / test (MPI-3.1
 * Sec. 11.5.2; the handlers of their generated wrappers, wrappers.def class "pscw"), with these
 * clock rules (docs/rma.md, "Synchronisation"):
 *
 *   call (at)              clock action                         messages
 *   post(G) (target)       signal: clock to each origin in G,   POST -> each origin (MPI, on
 *                          then tick                            the window's shadow), with how
 *                                                               many of its DONEs were applied
 *   start(G) (origin)      receive the post of each target in   -
 *                          G; operations to t then carry t's
 *                          post clock (R3), the origin's own
 *                          clock does not join it
 *   complete (origin)      remote + local completion; signal:   DONE -> the progress thread of
 *                          clock to each target, then tick      each target that has records
 *                                                               to complete (hrace's channel,
 *                                                               unacknowledged); DONE -> each
 *                                                               target in G (MPI), with how
 *                                                               many of the former it was sent
 *   wait (target)          receive the DONE of each origin in   -
 *                          G; once the progress thread has
 *                          applied as many channel DONEs as
 *                          they say, join their clocks (R4)
 *   test (target)          as wait once MPI says all completed  -
 *
 * The clocks travel between the application threads themselves, as MPI messages on the
 * window's shadow communicator, and no call waits for an acknowledgement: an epoch costs each
 * side one small MPI message per partner and wakes no progress thread unless it carried
 * operations (bench/README.md, "Session 11: short epochs"). Why each edge holds:
 *  - post -> origin's operations: the origin takes the post's clock before MPI_Win_start
 *    returns, and its records carry it; nobody else joins it, so the post orders nothing at
 *    any other process and its publication pings nobody (rma/shared.h).
 *  - operations -> target's accesses after wait: the records and the channel DONE travel on
 *    one connection in that order, and the MPI DONE leaves only after the channel DONE; wait
 *    counts the channel DONEs its progress thread applied until it has the number the MPI
 *    DONE names, so every record is in the shadow, with its completion epoch, before the
 *    target joins the clock and goes on.
 *  - completion -> anything else ordered after complete (the delivery invariant, protocol.h):
 *    a channel DONE is an unacknowledged completion (rma/shared.h), so the origin's next
 *    publication pings the target first, unless the target's next post said it applied it
 *    (the count in POST). The MPI DONE is itself a publication: with one target it reaches
 *    only that target, which waits for the records itself, so the mark is set after it; with
 *    more, the others could pass the clock on, so the marks are set before it and it pings.
 *  - an origin with no operation to a target sends it no channel DONE (unless completions
 *    from here to it are still unacknowledged, rma/shared.h: an MPI_Rget's, whose records the
 *    target must have applied before it joins) and the target waits for nothing.
 *
 * Start blocks until the posts arrive, as Open MPI's does (the standard allows it). hrace
 * receives the posts and DONEs *before* the real MPI_Win_start / MPI_Win_wait, so that a
 * program whose groups do not match (which then hangs in MPI) gets a diagnostic first. While
 * it waits for the DONEs it calls MPI_Win_test, since an origin's MPI_Win_complete may need
 * the target inside MPI (MPICH); if that ends the epoch, the real MPI_Win_wait is not called. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hb.h"
#include "core/spin.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/buffers.h"
#include "rma/protocol.h"
#include "rma/rma.h"
#include "rma/shared.h"
#include "wrappers.h"

#define MISMATCH_MS 5000       /* wait this long before saying the groups may not match */
#define SPIN_NS 200000L        /* bench/README.md, "Waiting for a deposit or a reply" */
enum { TAG_POST = 1, TAG_DONE = 2 };   /* on the window's shadow communicator */

/* ---- messages between the application threads ---------------------------------------- */

/* Forget the sends that finished (all: wait for every one). Caller holds omu. */
static void reap(hrace_win_t *w, int all) {
  unsigned k = 0;
  for (unsigned i = 0; i < w->npscw; i++) {
    int done = 1;
    if (all) PMPI_Wait(&w->pscw_reqs[i], MPI_STATUS_IGNORE);
    else if (PMPI_Test(&w->pscw_reqs[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 1;
    if (done) {
      free(w->pscw_bufs[i]);
    } else {
      w->pscw_reqs[k] = w->pscw_reqs[i];
      w->pscw_bufs[k++] = w->pscw_bufs[i];
    }
  }
  w->npscw = k;
}

void hrace__pscw_drain(hrace_win_t *w) {
  pthread_mutex_lock(&w->omu);
  reap(w, 1);
  free(w->pscw_bufs);
  free(w->pscw_reqs);
  w->pscw_bufs = NULL;
  w->pscw_reqs = NULL;
  w->cappscw = 0;
  pthread_mutex_unlock(&w->omu);
}

/* To group rank g: `count`, then the clock. Caller holds omu. */
static void send_clock(hrace_win_t *w, int g, int tag, uint32_t count, const hrace_vc_t *clock) {
  if (w->npscw == w->cappscw) {
    w->cappscw = w->cappscw ? 2 * w->cappscw : 8;
    w->pscw_bufs = realloc(w->pscw_bufs, w->cappscw * sizeof *w->pscw_bufs);
    w->pscw_reqs = realloc(w->pscw_reqs, w->cappscw * sizeof *w->pscw_reqs);
    if (!w->pscw_bufs || !w->pscw_reqs) abort();
  }
  uint32_t *m = malloc((1 + (size_t)clock->n) * sizeof *m);
  if (!m) abort();
  m[0] = count;
  memcpy(m + 1, clock->c, clock->n * sizeof *m);
  if (PMPI_Isend(m, (int)(1 + clock->n), MPI_UINT32_T, g, tag, w->shadow,
                 &w->pscw_reqs[w->npscw]) != MPI_SUCCESS) {
    free(m);
    return;
  }
  w->pscw_bufs[w->npscw++] = m;
}

/* What a received message is for: m[0] the count, m[1..n) the clock. */
typedef void (*take_fn)(hrace_win_t *w, int g, const uint32_t *m, int n, void *arg);

/* The ranks flagged in `need` but not in `got`, as text. */
static void missing(const hrace_win_t *w, const uint8_t *need, const uint8_t *got, char *buf,
                    size_t len) {
  size_t o = 0;
  buf[0] = 0;
  for (int g = 0; g < w->gsize && o + 16 < len; g++)
    if (need[g] && !got[g]) o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? ", " : "", g);
}

/* Receive one message `tag` from each group rank flagged in `need` and hand it to take().
 * Names the missing ranks once if that takes long. With `mpi_win`, MPI gets to make progress
 * meanwhile (PMPI_Win_test, until it says the exposure epoch is over: *ended), for an MPI
 * whose MPI_Win_complete needs the target inside MPI (MPICH). Polls, as a blocking MPI
 * receive would, yielding the processor; after a millisecond it sleeps between looks. */
static void gather(hrace_win_t *w, const uint8_t *need, int tag, take_fn take, void *arg,
                   uintptr_t pc, const char *call, const char *from, MPI_Win mpi_win,
                   int *ended) {
  int left = 0, told = 0;
  for (int g = 0; g < w->gsize; g++) left += need[g] != 0;
  if (!left) return;
  uint8_t *got = calloc((size_t)w->gsize, 1);
  if (!got) abort();
  int64_t t0 = 0;
  for (unsigned idle = 0; left; idle++) {
    for (int g = 0; g < w->gsize; g++) {
      if (!need[g] || got[g]) continue;
      int flag = 0, n = 0;
      MPI_Message msg;
      MPI_Status st;
      if (PMPI_Improbe(g, tag, w->shadow, &flag, &msg, &st) != MPI_SUCCESS) {
        got[g] = 1, left--;                 /* MPI said why; nothing to take */
        continue;
      }
      if (!flag) continue;
      PMPI_Get_count(&st, MPI_UINT32_T, &n);
      uint32_t *m = malloc(((size_t)n + 1) * sizeof *m);
      if (!m) abort();
      if (PMPI_Mrecv(m, n, MPI_UINT32_T, &msg, MPI_STATUS_IGNORE) == MPI_SUCCESS && n >= 1)
        take(w, g, m, n, arg);
      free(m);
      got[g] = 1, left--;
    }
    if (!left) break;
    if (mpi_win != MPI_WIN_NULL && !*ended && PMPI_Win_test(mpi_win, ended) != MPI_SUCCESS)
      *ended = 0, mpi_win = MPI_WIN_NULL;
    if (idle < 64) {
      sched_yield();
      continue;
    }
    int64_t now = hrace__spin_now();
    if (!t0) t0 = now;
    if (now - t0 < 1000000) {
      sched_yield();
      continue;
    }
    nanosleep(&(struct timespec){ .tv_nsec = 50000 }, NULL);
    if (!told && now - t0 >= (int64_t)MISMATCH_MS * 1000000) {
      char who[256];
      missing(w, need, got, who, sizeof who);
      hrace__report_misuse(pc, "%s on window %s has waited %d s for %s from rank(s) %s of its "
                           "group: do the PSCW groups match?", call, w->name, MISMATCH_MS / 1000,
                           from, who);
      told = 1;
    }
  }
  free(got);
}

/* The group's members as flags, or NULL (reported) if it is not a subgroup of the window's. */
static uint8_t *members(hrace_win_t *w, MPI_Group group, const char *call, uintptr_t pc) {
  uint8_t *f = calloc((size_t)w->gsize, 1);
  int bad = -1;
  if (!f) abort();
  if (hrace__win_group_flags(w, group, f, &bad) < 0) {
    if (bad >= 0)
      hrace__report_misuse(pc, "%s on window %s: rank %d of the group is not in the window's "
                           "group", call, w->name, bad);
    free(f);
    return NULL;
  }
  return f;
}

int hrace__h_win_post(MPI_Group group, int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  uint8_t *g = NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_POST, -1) == HRACE_EV_NESTED) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_post on window %s inside an exposure epoch "
                         "(no MPI_Win_wait since the last post)", w->name);
    w = NULL;
  }
  if (w) g = members(w, group, "MPI_Win_post", hrace__caller(ret));
  int rc = PMPI_Win_post(group, assert, win);
  if (g && rc == MPI_SUCCESS) {
    memcpy(w->post_group, g, (size_t)w->gsize);
    w->posted = 1;
    /* Everything this process did before the post precedes the origins' operations; the
     * clock reaches nothing else (see the top of this file), so it pings nobody. */
    hrace__shared_defer_pings(1);
    const hrace_vc_t *clock = hrace__signal_clock();
    hrace__shared_defer_pings(0);
    pthread_mutex_lock(&w->omu);
    reap(w, 0);
    for (int t = 0; t < w->gsize; t++)
      if (g[t]) send_clock(w, t, TAG_POST, __atomic_load_n(&w->dones[t], __ATOMIC_ACQUIRE), clock);
    pthread_mutex_unlock(&w->omu);
    hrace__signal_done("MPI_Win_post");
  }
  free(g);
  return rc;
}

/* A target's post: its clock for our operations there; and if it has applied every DONE we
 * sent it, our next publication need not ping it for them. */
static void take_post(hrace_win_t *w, int g, const uint32_t *m, int n, void *arg) {
  (void)arg;
  uint64_t mark = 0;
  pthread_mutex_lock(&w->omu);
  if (!w->post_vcs[g].n) hrace__vc_init(&w->post_vcs[g], hrace__clock_len());
  hrace__vc_join_raw(&w->post_vcs[g], m + 1, (uint32_t)n - 1);
  if ((int32_t)(m[0] - w->done_sent[g]) >= 0) mark = w->done_mark[g], w->done_mark[g] = 0;
  pthread_mutex_unlock(&w->omu);
  if (mark) hrace__shared_late_applied(hrace__win_world(w, g), mark);
}

int hrace__h_win_start(MPI_Group group, int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  uint8_t *g = NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_START, -1) == HRACE_EV_NESTED) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_start on window %s inside an access epoch "
                         "(no MPI_Win_complete since the last start)", w->name);
    w = NULL;
  }
  if (w) g = members(w, group, "MPI_Win_start", hrace__caller(ret));
  if (g) {
    int unused = 0;
    gather(w, g, TAG_POST, take_post, NULL, hrace__caller(ret), "MPI_Win_start", "MPI_Win_post",
           MPI_WIN_NULL, &unused);
  }
  int rc = PMPI_Win_start(group, assert, win);
  if (g && rc == MPI_SUCCESS) {
    pthread_mutex_lock(&w->omu);
    memcpy(w->start_group, g, (size_t)w->gsize);
    w->started = 1;
    pthread_mutex_unlock(&w->omu);
  }
  free(g);
  return rc;
}

int hrace__h_win_complete(MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_COMPLETE, -1) == HRACE_EV_NOT_OPEN) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_complete on window %s without MPI_Win_start",
                         w->name);
    w = NULL;
  }
  int rc = PMPI_Win_complete(win);
  if (w && rc == MPI_SUCCESS) {
    hrace__rma_dup_reset();
    pthread_mutex_lock(&w->omu);
    /* The channel DONEs: they complete our records at each target that has some (or may
     * have: unacknowledged completions there) and are counted there. */
    hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_DONE);
    int members = 0, nsent = 0;
    uint8_t *sent = calloc((size_t)w->gsize, 1);
    if (!sent) abort();
    for (int t = 0; t < w->gsize; t++) {
      if (!w->start_group[t]) continue;
      members++;
      int world = hrace__win_world(w, t);
      if (world == hrace__proc.rank) {
        if (!w->dirty[t]) continue;
        /* Our operations on ourselves were applied by their issuing threads: so is their
         * completion, and counted as the progress thread would. */
        hrace__win_lock();
        hrace__rma_complete_ops(w, &h);
        __atomic_store_n(&w->dones[t], w->dones[t] + 1, __ATOMIC_RELEASE);
        hrace__win_broadcast();
        hrace__win_unlock();
        w->done_sent[t]++;
      } else if (w->dirty[t] || hrace__shared_late_pending(world)) {
        hrace__ctl_send(world, &h, NULL, NULL, NULL, NULL);
        w->done_sent[t]++;
        sent[t] = 1, nsent++;
      }
      w->dirty[t] = 0;
    }
    /* The MPI DONEs carry our clock. With more than one target, each could pass it to a
     * process that then reaches another target before that one applied our records: the
     * publication pings them first (marks set before it). */
    if (members > 1)
      for (int t = 0; t < w->gsize; t++)
        if (sent[t]) w->done_mark[t] = hrace__shared_late_complete(hrace__win_world(w, t));
    const hrace_vc_t *clock = hrace__signal_clock();
    reap(w, 0);
    for (int t = 0; t < w->gsize; t++)
      if (w->start_group[t]) send_clock(w, t, TAG_DONE, w->done_sent[t], clock);
    if (members <= 1)
      for (int t = 0; t < w->gsize; t++)
        if (sent[t]) w->done_mark[t] = hrace__shared_late_complete(hrace__win_world(w, t));
    free(sent);
    memset(w->start_group, 0, (size_t)w->gsize);
    w->started = 0;
    pthread_mutex_unlock(&w->omu);
    hrace__buffers_complete(w, -1);
    hrace__signal_done("MPI_Win_complete");
  }
  return rc;
}

/* An origin's DONE: how many channel DONEs to wait for, and its clock. */
static void take_done(hrace_win_t *w, int g, const uint32_t *m, int n, void *arg) {
  w->done_want[g] = m[0];
  hrace__vc_join_raw(arg, m + 1, (uint32_t)n - 1);
}

/* Has the progress thread applied every channel DONE the origins' MPI DONEs named? */
static int applied(void *arg) {
  const hrace_win_t *w = arg;
  for (int g = 0; g < w->gsize; g++)
    if (w->post_group[g] &&
        (int32_t)(__atomic_load_n(&w->dones[g], __ATOMIC_ACQUIRE) - w->done_want[g]) < 0)
      return 0;
  return 1;
}

/* The exposure epoch ends: wait until the records are in, then join the origins' clocks. */
static void end_exposure(hrace_win_t *w, hrace_vc_t *got) {
  if (!applied(w) && !hrace__spin(applied, w, SPIN_NS)) {
    hrace__win_lock();
    while (!applied(w)) hrace__win_wait(100);
    hrace__win_unlock();
  }
  memset(w->post_group, 0, (size_t)w->gsize);
  w->posted = 0;
  hrace__wait(got->c, got->n, "MPI_Win_wait");
}

int hrace__h_win_wait(MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_WAIT, -1) == HRACE_EV_NOT_OPEN) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_wait on window %s without MPI_Win_post", w->name);
    w = NULL;
  }
  int ended = 0;
  hrace_vc_t got = { 0 };
  if (w) {   /* receive the DONEs first (see the top of this file), then let MPI wait */
    hrace__vc_init(&got, hrace__clock_len());
    gather(w, w->post_group, TAG_DONE, take_done, &got, hrace__caller(ret), "MPI_Win_wait",
           "MPI_Win_complete", win, &ended);
  }
  int rc = ended ? MPI_SUCCESS : PMPI_Win_wait(win);
  if (w && rc == MPI_SUCCESS) end_exposure(w, &got);
  if (w) hrace__vc_free(&got);
  return rc;
}

int hrace__h_win_test(MPI_Win win, int *flag, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_WAIT, -1) == HRACE_EV_NOT_OPEN) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_test on window %s without MPI_Win_post", w->name);
    w = NULL;
  }
  int rc = PMPI_Win_test(win, flag);
  /* MPI says every origin has completed: their DONEs are sent or on their way. */
  if (w && rc == MPI_SUCCESS && *flag) {
    hrace_vc_t got;
    int unused = 0;
    hrace__vc_init(&got, hrace__clock_len());
    gather(w, w->post_group, TAG_DONE, take_done, &got, hrace__caller(ret), "MPI_Win_test",
           "MPI_Win_complete", MPI_WIN_NULL, &unused);
    end_exposure(w, &got);
    hrace__vc_free(&got);
  }
  return rc;
}
