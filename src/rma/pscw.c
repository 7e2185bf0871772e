/* General active-target synchronisation: post / start / complete / wait / test (MPI-3.1
 * Sec. 11.5.2; the handlers of their generated wrappers, wrappers.def class "pscw"), with these
 * clock rules (docs/rma.md, "Synchronisation"):
 *
 *   call (at)              clock action                         messages
 *   post(G) (target)       signal: clock to each origin in G,   POST -> each origin's progress
 *                          then tick                            thread (deposited), with how
 *                                                               many of its DONEs were applied
 *   start(G) (origin)      wait for the post of each target in  -
 *                          G; operations to t then carry t's
 *                          post clock (R3), the origin's own
 *                          clock does not join it
 *   complete (origin)      remote + local completion; signal:   DONE -> each target's progress
 *                          clock to each target, then tick      thread (hrace's channel, after
 *                                                               the records), deposited; ACK
 *                                                               only with more than one target
 *   wait (target)          wait for the DONE of each origin in  -
 *                          G; join their clocks (R4)
 *   test (target)          as wait once MPI says all completed  -
 *
 * Why each edge holds with no round trip in an epoch of one partner (bench/README.md,
 * "Session 11: short epochs"):
 *  - post -> origin's operations: the origin takes the post's clock before MPI_Win_start
 *    returns, and its records carry it. Nobody joins it, so it orders nothing at any other
 *    process, and its publication pings nobody (rma/shared.h).
 *  - operations -> target's accesses after wait: the records and the DONE travel on one
 *    connection in that order; the target's progress thread applies the records, then the
 *    DONE (completion epochs fixed, clock deposited), and only then does the wait join it.
 *    Whoever reads the channel applies them, in that order: the progress thread, or the
 *    waiting thread itself (await, core/chan.h hrace__chan_help), which then needs no wake-up.
 *  - completion -> anything else ordered after complete (the delivery invariant, protocol.h):
 *    the DONE goes out unacknowledged, as an unacknowledged completion (rma/shared.h): the
 *    origin's next publication pings the target first, unless the target's next post said it
 *    has applied it (the count in POST: that process applied as many DONEs from us, on
 *    any window, as we sent; one connection carries them in order; below
 *    MPI_THREAD_MULTIPLE only, see dones_acked). In a pipeline the origin's next publication
 *    is its next complete, after the next start: no ping; in a halo exchange it is the next
 *    post, which pings nobody. With more than one target the DONE to one carries a clock
 *    ordered after the completion at another, which could pass it on: then complete waits
 *    for every target's acknowledgement, as a completing call otherwise does.
 *
 * POSTs and DONEs without reply go as quiet requests (protocol.h, hrace__ctl_send_quiet): only
 * the peer's thread waiting in await() needs them soon, and it says so (hrace__chan_waiting)
 * before it looks at the channel; every request that needs them applied at a peer that is not
 * waiting (a ping, a lock, a flush) comes behind them on the same connection and rings.
 *
 * Start blocks until the posts arrive, as Open MPI's does (the standard allows it). hrace
 * waits for posts and DONEs *before* the real MPI_Win_start / MPI_Win_wait, so that a program
 * whose groups do not match (which then hangs in MPI) gets a diagnostic first. While it waits
 * for the DONEs it calls MPI_Win_test, since an origin's MPI_Win_complete may need the target
 * inside MPI (MPICH); if that ends the epoch, the real MPI_Win_wait is not called. While it
 * waits for posts it lets MPI progress once a millisecond (hrace__chan_poke), for the same
 * reason: the origin may be the target of another epoch, whose origin completes meanwhile. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/chan.h"
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

/* The group's members as flags, in `small` (SMALL_GROUP bytes) when the window's group fits,
 * else allocated: a tiny epoch should not pay for an allocation. NULL (reported) if the group
 * is not a subgroup of the window's. Release with release_members. */
#define SMALL_GROUP 64
static uint8_t *members(hrace_win_t *w, MPI_Group group, const char *call, uintptr_t pc,
                        uint8_t *small) {
  uint8_t *f = w->gsize <= SMALL_GROUP ? small : malloc((size_t)w->gsize);
  int bad = -1;
  if (!f) abort();
  if (hrace__win_group_flags(w, group, f, &bad) < 0) {
    if (bad >= 0)
      hrace__report_misuse(pc, "%s on window %s: rank %d of the group is not in the window's "
                           "group", call, w->name, bad);
    if (f != small) free(f);
    return NULL;
  }
  return f;
}

static void release_members(uint8_t *f, const uint8_t *small) {
  if (f != small) free(f);
}

/* The ranks flagged in `need` whose deposit count is still 0, as text. */
static void missing(const hrace_win_t *w, const uint8_t *need, const unsigned *have, char *buf,
                    size_t len) {
  size_t o = 0;
  buf[0] = 0;
  for (int g = 0; g < w->gsize && o + 16 < len; g++)
    if (need[g] && !have[g]) o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? ", " : "", g);
}

/* ---- deposits by the progress thread ------------------------------------------- */

/* Have all the deposits await() waits for arrived? Read without the registry lock, so only a
 * hint: await() looks again under the lock. */
static int arrived(const hrace_win_t *w, const uint8_t *need, unsigned *have) {
  int all = 1;
  for (int g = 0; g < w->gsize && all; g++)
    all = !need[g] || __atomic_load_n(&have[g], __ATOMIC_ACQUIRE);
  return all;
}

/* Before await() sleeps: a deposit usually comes within tens of microseconds (a neighbour in
 * a pipeline completes right after its own step), so yield-spin for it first (core/spin.h),
 * MPI getting its PMPI_Win_test meanwhile as in await(). Called with the registry lock held;
 * released meanwhile. */
typedef struct spin_arg {
  const hrace_win_t *w;
  const uint8_t *need;
  unsigned *have;
  MPI_Win *mpi_win;
  int *ended;
} spin_arg_t;

static int deposit_ready(void *p) {
  spin_arg_t *a = p;
  hrace__chan_help(1);   /* the deposit's message may be here, unread (see await) */
  if (*a->mpi_win != MPI_WIN_NULL && !*a->ended &&
      PMPI_Win_test(*a->mpi_win, a->ended) != MPI_SUCCESS)
    *a->ended = 0, *a->mpi_win = MPI_WIN_NULL;
  return arrived(a->w, a->need, a->have);
}

/* With the registry lock held: wait until have[g] > 0 for every g in need, then consume one
 * of each. Names the missing ranks once if that takes long. With `mpi_win`, MPI gets to make
 * progress meanwhile (PMPI_Win_test, until it says the exposure epoch is over: *ended). */
static void await(const hrace_win_t *w, const uint8_t *need, unsigned *have, uintptr_t pc,
                  const char *call, const char *from, MPI_Win mpi_win, int *ended) {
  int told = 0, spun = 0;
  long waited = 0;
  /* POSTs and DONEs ring no doorbell while nobody waits for them (hrace__ctl_send_quiet):
   * say that we do before the first look at the channel below; each turn looks again before
   * it sleeps. */
  hrace__chan_waiting(1);
  for (;;) {
    if (arrived(w, need, have)) break;
    /* The POST or DONE may be in our ring, read by nobody yet: apply it on this thread
     * rather than wait for the progress thread to be scheduled and wake us (core/chan.h,
     * hrace__chan_help; docs/rma.md, "Synchronisation"). */
    hrace__win_unlock();
    int got = hrace__chan_help(1);
    hrace__win_lock();
    if (got) continue;
    if (!spun++) {
      spin_arg_t a = { w, need, have, &mpi_win, ended };
      hrace__win_unlock();
      hrace__chan_spin(1, deposit_ready, &a, SPIN_NS);
      hrace__win_lock();
      continue;
    }
    if (mpi_win != MPI_WIN_NULL && !*ended) {
      hrace__win_unlock();
      if (PMPI_Win_test(mpi_win, ended) != MPI_SUCCESS) *ended = 0, mpi_win = MPI_WIN_NULL;
      hrace__win_lock();
      if (hrace__win_wait(1) == ETIMEDOUT) waited += 1;
      continue;
    }
    /* Not in MPI yet: an origin's MPI_Win_complete on another window may need this process
     * to progress meanwhile (MPICH; pscw_self_multi_norace hung in MPI_Win_start there). */
    hrace__win_unlock();
    hrace__chan_poke();
    hrace__win_lock();
    if (hrace__win_wait(1) == ETIMEDOUT) waited += 1;
    if (!told && waited >= MISMATCH_MS) {
      char who[256];
      missing(w, need, have, who, sizeof who);
      hrace__win_unlock();
      hrace__report_misuse(pc, "%s on window %s has waited %d s for %s from rank(s) %s of its "
                           "group: do the PSCW groups match?", call, w->name, MISMATCH_MS / 1000,
                           from, who);
      hrace__win_lock();
      told = 1;
    }
  }
  hrace__chan_waiting(0);
  for (int g = 0; g < w->gsize; g++)
    if (need[g]) have[g]--;
}

/* Unacknowledged DONEs, per world rank and whatever the window: one connection carries all of
 * a process's DONEs to another, in order, so "n of them applied" covers every earlier one. */
static pthread_once_t dones_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t dones_mu = PTHREAD_MUTEX_INITIALIZER;
static uint32_t *d_sent;       /* origin: DONEs sent to each rank (under dones_mu) */
static uint64_t *d_mark;       /* origin: the last one's unacknowledged mark, 0 once applied */
static uint32_t *d_applied;    /* target: DONEs from each rank its progress thread applied */

static void dones_init(void) {
  size_t n = (size_t)hrace__proc.size;
  d_sent = calloc(n, sizeof *d_sent);
  d_mark = calloc(n, sizeof *d_mark);
  d_applied = calloc(n, sizeof *d_applied);
  if (!d_sent || !d_mark || !d_applied) abort();
}

/* A target (world rank) said it has applied `applied` of our DONEs: if that is all we sent,
 * the last one's mark needs no ping any more. Only when the application makes one MPI call at
 * a time: a mark is taken after its message is sent (rma/shared.h), so with two threads
 * completing at once (a flush and a complete to one target) a mark below the DONE's could
 * belong to a message sent after the DONE, which the count does not cover. */
static void dones_acked(int world, uint32_t applied) {
  uint64_t mark = 0;
  if (!hrace__mpi_serial()) return;
  pthread_once(&dones_once, dones_init);
  pthread_mutex_lock(&dones_mu);
  if ((int32_t)(applied - d_sent[world]) >= 0) mark = d_mark[world], d_mark[world] = 0;
  pthread_mutex_unlock(&dones_mu);
  if (mark) hrace__shared_late_applied(world, mark);
}

/* A DONE from h->origin, with its clock (vc, n): complete its operations here and deposit
 * the clock for our MPI_Win_wait. Caller holds the registry lock (the progress thread, or the
 * completing thread for its own process). */
void hrace__done_apply(hrace_win_t *w, const hrace_msg_t *h, const hrace_clk_t *vc, uint32_t n) {
  hrace__rma_complete_ops(w, h);
  if (h->origin != hrace__proc.rank) {
    pthread_once(&dones_once, dones_init);
    __atomic_add_fetch(&d_applied[h->origin], 1, __ATOMIC_RELEASE);
  }
  int g = hrace__win_group_rank(w, h->origin);
  if (g < 0) return;
  hrace__vc_join_raw(&w->done_vc, vc, n);
  __atomic_store_n(&w->dones[g], w->dones[g] + 1, __ATOMIC_RELEASE);
}

/* A POST from h->origin, with its clock: deposit it for our MPI_Win_start. The next post of
 * that target can only follow our MPI_Win_complete of this one (its MPI_Win_wait waits for
 * it), so one clock per target suffices, and it is stable during our access epoch (ops.c
 * reads it). Caller holds the registry lock (the progress thread). */
void hrace__post_apply(hrace_win_t *w, const hrace_msg_t *h, const hrace_clk_t *vc) {
  int g = hrace__win_group_rank(w, h->origin);
  if (g < 0) return;
  if (!w->post_vcs[g].n) hrace__vc_init(&w->post_vcs[g], hrace__clock_len());
  hrace__vc_join_raw(&w->post_vcs[g], vc, h->vc_n);
  w->post_ack[g] = h->complete;
  __atomic_store_n(&w->posts[g], w->posts[g] + 1, __ATOMIC_RELEASE);
}

/* ---- the handlers ---------------------------------------------------------------------- */

int hrace__h_win_post(MPI_Group group, int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  uint8_t *g = NULL, small[SMALL_GROUP];
  if (w && hrace__epoch_check(w, HRACE_EC_POST, -1) == HRACE_EV_NESTED) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_post on window %s inside an exposure epoch "
                         "(no MPI_Win_wait since the last post)", w->name);
    w = NULL;
  }
  if (w) g = members(w, group, "MPI_Win_post", hrace__caller(ret), small);
  int rc = PMPI_Win_post(group, assert, win);
  if (g && rc == MPI_SUCCESS) {
    memcpy(w->post_group, g, (size_t)w->gsize);
    w->posted = 1;
    /* Everything this process did before the post precedes the origins' operations; the
     * clock reaches nothing else (see the top of this file), so it pings nobody. */
    hrace__shared_defer_pings(1);
    const hrace_vc_t *clock = hrace__signal_clock();
    hrace__shared_defer_pings(0);
    hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_POST);
    for (int t = 0; t < w->gsize; t++)
      if (g[t]) {
        int world = hrace__win_world(w, t);
        pthread_once(&dones_once, dones_init);
        h.complete = world == hrace__proc.rank ? 0
                                               : __atomic_load_n(&d_applied[world], __ATOMIC_ACQUIRE);
        hrace__ctl_send_quiet(world, &h, clock);
      }
    hrace__signal_done("MPI_Win_post");
  }
  release_members(g, small);
  return rc;
}

int hrace__h_win_start(MPI_Group group, int assert, MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  uint8_t *g = NULL, small[SMALL_GROUP];
  if (w && hrace__epoch_check(w, HRACE_EC_START, -1) == HRACE_EV_NESTED) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_start on window %s inside an access epoch "
                         "(no MPI_Win_complete since the last start)", w->name);
    w = NULL;
  }
  if (w) g = members(w, group, "MPI_Win_start", hrace__caller(ret), small);
  if (g) {
    /* Take the posts; a target that had applied every DONE we sent it needs no ping for
     * them at our next publication. */
    int unused = 0;
    uint32_t smallack[SMALL_GROUP];
    uint32_t *ack = w->gsize <= SMALL_GROUP ? smallack : malloc((size_t)w->gsize * sizeof *ack);
    if (!ack) abort();
    hrace__win_lock();
    await(w, g, w->posts, hrace__caller(ret), "MPI_Win_start", "MPI_Win_post", MPI_WIN_NULL,
          &unused);
    memcpy(ack, w->post_ack, (size_t)w->gsize * sizeof *ack);
    hrace__win_unlock();
    for (int t = 0; t < w->gsize; t++)
      if (g[t] && hrace__win_world(w, t) != hrace__proc.rank)
        dones_acked(hrace__win_world(w, t), ack[t]);
    if (ack != smallack) free(ack);
  }
  int rc = PMPI_Win_start(group, assert, win);
  if (g && rc == MPI_SUCCESS) {
    pthread_mutex_lock(&w->omu);
    memcpy(w->start_group, g, (size_t)w->gsize);
    w->started = 1;
    pthread_mutex_unlock(&w->omu);
  }
  release_members(g, small);
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
    const hrace_vc_t *clock = hrace__signal_clock();
    pthread_mutex_lock(&w->omu);
    /* DONE completes our operations at each target and deposits our clock there. With more
     * than one target, each acknowledges (see the top of this file). */
    int ntargets = 0;
    for (int t = 0; t < w->gsize; t++) ntargets += w->start_group[t] != 0;
    hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_DONE);
    if (ntargets == 1) h.reply_tag = HRACE_NO_REPLY;
    for (int t = 0; t < w->gsize; t++) {
      if (!w->start_group[t]) continue;
      int world = hrace__win_world(w, t);
      if (world == hrace__proc.rank) {
        /* Our operations on ourselves were applied by their issuing threads: so is their
         * completion, and the deposit the progress thread would make. */
        hrace__win_lock();
        hrace__done_apply(w, &h, clock->c, clock->n);
        hrace__win_broadcast();
        hrace__win_unlock();
        continue;
      }
      if (ntargets == 1) hrace__ctl_send_quiet(world, &h, clock);
      else hrace__ctl_send(world, &h, NULL, clock, NULL, NULL);
      pthread_once(&dones_once, dones_init);
      pthread_mutex_lock(&dones_mu);
      d_sent[world]++;
      if (ntargets == 1) d_mark[world] = hrace__shared_late_complete(world);
      pthread_mutex_unlock(&dones_mu);
    }
    for (int t = 0; t < w->gsize; t++)
      if (ntargets > 1 && w->start_group[t] && hrace__win_world(w, t) != hrace__proc.rank)
        hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_ACK, NULL);
    for (int t = 0; t < w->gsize; t++)
      if (w->start_group[t]) w->dirty[t] = 0;
    memset(w->start_group, 0, (size_t)w->gsize);
    w->started = 0;
    pthread_mutex_unlock(&w->omu);
    hrace__buffers_complete(w, -1);
    hrace__signal_done("MPI_Win_complete");
  }
  return rc;
}

/* The exposure epoch ends: take one DONE of each origin in the post group and join. */
static void end_exposure(hrace_win_t *w, uintptr_t pc, const char *call) {
  hrace__win_lock();
  int unused = 0;
  await(w, w->post_group, w->dones, pc, call, "MPI_Win_complete", MPI_WIN_NULL, &unused);
  hrace_vc_t got;
  hrace__vc_init(&got, w->done_vc.n);
  hrace__vc_copy(&got, &w->done_vc);
  memset(w->post_group, 0, (size_t)w->gsize);
  w->posted = 0;
  hrace__win_unlock();
  hrace__wait(got.c, got.n, call);
  hrace__vc_free(&got);
}

int hrace__h_win_wait(MPI_Win win, int active, uintptr_t ret) {
  hrace_win_t *w = active ? hrace__win_of(win) : NULL;
  if (w && hrace__epoch_check(w, HRACE_EC_WAIT, -1) == HRACE_EV_NOT_OPEN) {
    hrace__report_misuse(hrace__caller(ret), "MPI_Win_wait on window %s without MPI_Win_post", w->name);
    w = NULL;
  }
  int ended = 0;
  if (w) {   /* wait for the DONEs first (see the top of this file), then let MPI wait */
    hrace__win_lock();
    await(w, w->post_group, w->dones, hrace__caller(ret), "MPI_Win_wait", "MPI_Win_complete", win,
          &ended);
    for (int g = 0; g < w->gsize; g++) w->dones[g] += w->post_group[g];   /* not consumed yet */
    hrace__win_unlock();
  }
  int rc = ended ? MPI_SUCCESS : PMPI_Win_wait(win);
  if (w && rc == MPI_SUCCESS) end_exposure(w, hrace__caller(ret), "MPI_Win_wait");
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
  if (w && rc == MPI_SUCCESS && *flag) end_exposure(w, hrace__caller(ret), "MPI_Win_test");
  return rc;
}
