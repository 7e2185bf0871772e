/* General active-target synchronisation: post / start / complete / wait / test (MPI-3.1
 * Sec. 11.5.2; the handlers of their generated wrappers, wrappers.def class "pscw"), with these clock rules (docs/rma.md, "Synchronisation"):
 *
 *   call (at)              clock action                         message
 *   post(G) (target)       signal: clock to each origin in G,   POST -> origin's progress
 *                          then tick                            thread (deposited)
 *   start(G) (origin)      wait for the post of each target     -
 *                          in G; operations to t then carry
 *                          t's post clock (R3), the origin's
 *                          own clock does not join it
 *   complete (origin)      remote + local completion; signal:   DONE -> each target in G,
 *                          clock to each target, then tick      acknowledged
 *   wait (target)          wait for the DONE of each origin in  -
 *                          G; join their clocks (R4)
 *   test (target)          as wait once MPI says all completed  -
 *
 * Start blocks until the posts arrive, as Open MPI's does (the standard allows it). hrace waits
 * for posts and completes *before* the real MPI_Win_start / MPI_Win_wait, so that a program
 * whose groups do not match (which then hangs in MPI) gets a diagnostic first. While it waits
 * for the completes it calls MPI_Win_test, since an origin's MPI_Win_complete may need the
 * target inside MPI (MPICH); if that ends the epoch, the real MPI_Win_wait is not called. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hb.h"
#include "core/spin.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/buffers.h"
#include "rma/protocol.h"
#include "rma/rma.h"
#include "wrappers.h"

#define MISMATCH_MS 5000       /* wait this long before saying the groups may not match */

/* The ranks flagged in `need` whose deposit count is still 0, as text. */
static void missing(const hrace_win_t *w, const uint8_t *need, const unsigned *have, char *buf,
                    size_t len) {
  size_t o = 0;
  buf[0] = 0;
  for (int g = 0; g < w->gsize && o + 16 < len; g++)
    if (need[g] && !have[g]) o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? ", " : "", g);
}

/* Have all the deposits await() waits for arrived? Read without the registry lock, so only a
 * hint: await() looks again under the lock. */
static int arrived(const hrace_win_t *w, const uint8_t *need, unsigned *have) {
  int all = 1;
  for (int g = 0; g < w->gsize && all; g++)
    all = !need[g] || __atomic_load_n(&have[g], __ATOMIC_ACQUIRE);
  return all;
}

/* Before await() sleeps: a deposit usually comes within tens of microseconds (a neighbour in
 * a pipeline posts right after its own step), so yield-spin for it first (core/spin.h), MPI
 * getting its PMPI_Win_test meanwhile as in await(). Called with the registry lock held;
 * released meanwhile. */
#define SPIN_NS 200000L   /* bench/README.md, "Waiting for a deposit or a reply" */
typedef struct spin_arg {
  const hrace_win_t *w;
  const uint8_t *need;
  unsigned *have;
  MPI_Win *mpi_win;
  int *ended;
} spin_arg_t;

static int deposit_ready(void *p) {
  spin_arg_t *a = p;
  if (*a->mpi_win != MPI_WIN_NULL && !*a->ended &&
      PMPI_Win_test(*a->mpi_win, a->ended) != MPI_SUCCESS)
    *a->ended = 0, *a->mpi_win = MPI_WIN_NULL;
  return arrived(a->w, a->need, a->have);
}

static void spin_for_deposit(const hrace_win_t *w, const uint8_t *need, unsigned *have,
                             MPI_Win *mpi_win, int *ended) {
  spin_arg_t a = { w, need, have, mpi_win, ended };
  hrace__win_unlock();
  hrace__spin(deposit_ready, &a, SPIN_NS);
  hrace__win_lock();
}

/* With the registry lock held: wait until have[g] > 0 for every g in need, then consume one
 * of each. Names the missing ranks once if that takes long. With `mpi_win`, MPI gets to make
 * progress meanwhile (PMPI_Win_test, until it says the exposure epoch is over: *ended), for an
 * MPI whose MPI_Win_complete needs the target inside MPI (MPICH). */
static void await(const hrace_win_t *w, const uint8_t *need, unsigned *have, uintptr_t pc,
                  const char *call, const char *from, MPI_Win mpi_win, int *ended) {
  int told = 0, spun = 0;
  long waited = 0;
  for (;;) {
    if (arrived(w, need, have)) break;
    if (!spun++) {
      spin_for_deposit(w, need, have, &mpi_win, ended);
      continue;
    }
    if (mpi_win != MPI_WIN_NULL && !*ended) {
      hrace__win_unlock();
      if (PMPI_Win_test(mpi_win, ended) != MPI_SUCCESS) *ended = 0, mpi_win = MPI_WIN_NULL;
      hrace__win_lock();
      if (hrace__win_wait(1) == ETIMEDOUT) waited += 1;
      continue;
    }
    if (hrace__win_wait(100) == ETIMEDOUT) waited += 100;
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
  for (int g = 0; g < w->gsize; g++)
    if (need[g]) have[g]--;
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
    hrace__win_lock();
    memcpy(w->post_group, g, (size_t)w->gsize);
    w->posted = 1;
    hrace__win_unlock();
    /* Everything this process did before the post precedes the origins' operations. */
    hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_POST);
    const hrace_vc_t *clock = hrace__signal_clock();
    for (int t = 0; t < w->gsize; t++)
      if (g[t]) hrace__ctl_send(hrace__win_world(w, t), &h, NULL, clock, NULL, NULL);
    hrace__signal_done("MPI_Win_post");
  }
  free(g);
  return rc;
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
    hrace__win_lock();
    int unused = 0;
    await(w, g, w->posts, hrace__caller(ret), "MPI_Win_start", "MPI_Win_post", MPI_WIN_NULL, &unused);
    hrace__win_unlock();
  }
  int rc = PMPI_Win_start(group, assert, win);
  if (g) {
    if (rc == MPI_SUCCESS) {
      pthread_mutex_lock(&w->omu);
      memcpy(w->start_group, g, (size_t)w->gsize);
      w->started = 1;
      pthread_mutex_unlock(&w->omu);
    } else {   /* the posts stay matched to nothing: put them back */
      hrace__win_lock();
      for (int t = 0; t < w->gsize; t++) w->posts[t] += g[t];
      hrace__win_unlock();
    }
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
    /* DONE completes our operations at each target and deposits our clock there; the
     * acknowledgement keeps the delivery invariant (the target's wait may return at once). */
    const hrace_vc_t *clock = hrace__signal_clock();
    pthread_mutex_lock(&w->omu);
    hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_DONE);
    for (int t = 0; t < w->gsize; t++)
      if (w->start_group[t]) hrace__ctl_send(hrace__win_world(w, t), &h, NULL, clock, NULL, NULL);
    for (int t = 0; t < w->gsize; t++)
      if (w->start_group[t]) {
        hrace__ctl_wait_reply(hrace__win_world(w, t), HRACE_MSG_ACK, NULL);
        w->dirty[t] = 0;
      }
    memset(w->start_group, 0, (size_t)w->gsize);
    w->started = 0;
    pthread_mutex_unlock(&w->omu);
    hrace__buffers_complete(w, -1);
    hrace__signal_done("MPI_Win_complete");
  }
  return rc;
}

/* The exposure epoch ends: take one DONE of each origin in the post group and join. */
static void end_exposure(hrace_win_t *w, uintptr_t pc) {
  hrace__win_lock();
  int unused = 0;
  await(w, w->post_group, w->dones, pc, "MPI_Win_wait", "MPI_Win_complete", MPI_WIN_NULL, &unused);
  hrace_vc_t got;
  hrace__vc_init(&got, w->done_vc.n);
  hrace__vc_copy(&got, &w->done_vc);
  memset(w->post_group, 0, (size_t)w->gsize);
  w->posted = 0;
  hrace__win_unlock();
  hrace__wait(got.c, got.n, "MPI_Win_wait");
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
  if (w && rc == MPI_SUCCESS) end_exposure(w, hrace__caller(ret));
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
  if (w && rc == MPI_SUCCESS && *flag) end_exposure(w, hrace__caller(ret));
  return rc;
}
