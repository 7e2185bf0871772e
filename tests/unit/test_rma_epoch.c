/* Unit tests of the origin-side epoch state (rma/window.h, hrace__epoch_check: the table in
 * epoch.c), without MPI: a window of three members made by hand walks through passive-target,
 * fence and PSCW epochs, each state set as the table's "then" column says the handlers set it
 * after the real call; at each step, which calls are valid, which are misuse (nested epochs,
 * ends and flushes without an epoch, a NOPRECEDE fence with operations pending, targets outside
 * the group) and whether an RMA operation to each rank is inside an access epoch
 * (hrace__rma_in_epoch, hrace__rma_epoch_kind: rma/rma.h). */
#include <string.h>

#include "rma/rma.h"
#include "rma/window.h"
#include "tap.h"

enum { N = 3 };
static uint8_t lock[N], dirty[N], start_group[N], post_group[N];
static hrace_win_t w = { .gsize = N, .lock = lock, .dirty = dirty, .start_group = start_group,
                         .post_group = post_group };

static int check(int call, int target) { return hrace__epoch_check(&w, call, target); }

/* Which ranks an operation may target now, as a bit set. */
static int in_epoch(void) {
  int set = 0;
  for (int t = 0; t < N; t++) set |= hrace__rma_in_epoch(&w, t) << t;
  return set;
}

int main(void) {
  plan(44);

  /* No epoch. */
  is_int(HRACE_EV_OK, check(HRACE_EC_LOCK, 0), "no epoch: lock is valid");
  is_int(HRACE_EV_OK, check(HRACE_EC_LOCK_ALL, -1), "no epoch: lock_all is valid");
  is_int(HRACE_EV_OK, check(HRACE_EC_POST, -1), "no epoch: post is valid");
  is_int(HRACE_EV_OK, check(HRACE_EC_START, -1), "no epoch: start is valid");
  is_int(HRACE_EV_OK, check(HRACE_EC_FENCE_NOPRECEDE, -1), "no epoch: a NOPRECEDE fence is valid");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_UNLOCK, 0), "no epoch: unlock is misuse");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_UNLOCK_ALL, -1), "no epoch: unlock_all is misuse");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_FLUSH, 1), "no epoch: flush is misuse");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_FLUSH, -1), "no epoch: flush_all is misuse");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_COMPLETE, -1), "no epoch: complete is misuse");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_WAIT, -1), "no epoch: wait / test is misuse");
  is_int(0, in_epoch(), "no epoch: no rank may be targeted");
  is_int(HRACE_EPOCH_NONE, hrace__rma_epoch_kind(&w, 0), "no epoch: kind none");
  is_int(HRACE_EV_TARGET, check(HRACE_EC_LOCK, N), "lock of a rank past the group: left to MPI");
  is_int(HRACE_EV_TARGET, check(HRACE_EC_LOCK, -1), "lock of a negative rank: left to MPI");
  is_int(HRACE_EV_TARGET, check(HRACE_EC_UNLOCK, N), "unlock of a rank past the group: left to MPI");
  is_int(HRACE_EV_TARGET, check(HRACE_EC_FLUSH, N), "flush of a rank past the group: left to MPI");

  /* lock(1, exclusive) */
  lock[1] = HRACE_LOCK_EXCL;
  is_int(HRACE_EV_NESTED, check(HRACE_EC_LOCK, 1), "locked 1: a second lock of 1 is misuse");
  is_int(HRACE_EV_OK, check(HRACE_EC_LOCK, 0), "locked 1: lock of 0 is valid");
  is_int(HRACE_EV_NESTED, check(HRACE_EC_LOCK_ALL, -1), "locked 1: lock_all is misuse");
  is_int(HRACE_EV_OK, check(HRACE_EC_FLUSH, 1), "locked 1: flush(1) is valid");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_FLUSH, 0), "locked 1: flush(0) is misuse");
  is_int(HRACE_EV_OK, check(HRACE_EC_FLUSH, -1), "locked 1: flush_all is valid");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_UNLOCK, 0), "locked 1: unlock(0) is misuse");
  is_int(1 << 1, in_epoch(), "locked 1: rank 1 only may be targeted");
  is_int(HRACE_EPOCH_EXCL, hrace__rma_epoch_kind(&w, 1), "locked 1: an exclusive epoch there");
  is_int(HRACE_EV_OK, check(HRACE_EC_UNLOCK, 1), "locked 1: unlock(1) is valid");
  lock[1] = HRACE_LOCK_NONE;   /* unlock(1) */
  is_int(HRACE_EV_OK, check(HRACE_EC_LOCK, 1), "unlocked: 1 may be locked again");

  /* lock_all */
  memset(lock, HRACE_LOCK_SHARED, sizeof lock);
  w.lock_all = 1;
  is_int(HRACE_EV_NESTED, check(HRACE_EC_LOCK, 2), "lock_all: lock of one rank is misuse");
  is_int(HRACE_EV_NESTED, check(HRACE_EC_LOCK_ALL, -1), "lock_all: a second lock_all is misuse");
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_UNLOCK, 2), "lock_all: unlock of one rank is misuse");
  is_int(HRACE_EV_OK, check(HRACE_EC_FLUSH, 2), "lock_all: flush(2) is valid");
  is_int((1 << N) - 1, in_epoch(), "lock_all: every rank may be targeted");
  is_int(HRACE_EPOCH_LOCK_ALL, hrace__rma_epoch_kind(&w, 0), "lock_all: kind lock_all");
  is_int(HRACE_EV_OK, check(HRACE_EC_UNLOCK_ALL, -1), "lock_all: unlock_all is valid");
  memset(lock, HRACE_LOCK_NONE, sizeof lock);   /* unlock_all */
  w.lock_all = 0;
  is_int(HRACE_EV_NOT_OPEN, check(HRACE_EC_UNLOCK_ALL, -1), "after unlock_all: a second one is misuse");

  /* fence */
  w.fence_epoch = 1;
  is_int((1 << N) - 1, in_epoch(), "fence: every rank may be targeted");
  dirty[2] = 1;   /* a put to 2 */
  is_int(HRACE_EV_PENDING, check(HRACE_EC_FENCE_NOPRECEDE, -1),
         "an operation issued since the fence: a NOPRECEDE fence is misuse");
  dirty[2] = 0;   /* fence (MPI_MODE_NOSUCCEED): completed, and the epoch ends */
  w.fence_epoch = 0;
  is_int(0, in_epoch(), "after a NOSUCCEED fence: no rank may be targeted");

  /* PSCW: start({0, 2}), post({1}) */
  start_group[0] = start_group[2] = 1;
  w.started = 1;
  post_group[1] = 1;
  w.posted = 1;
  is_int(HRACE_EV_NESTED, check(HRACE_EC_START, -1), "started: a second start is misuse");
  is_int(HRACE_EV_NESTED, check(HRACE_EC_POST, -1), "posted: a second post is misuse");
  is_int((1 << 0) | (1 << 2), in_epoch(), "started {0, 2}: those ranks only may be targeted");
  ok(check(HRACE_EC_COMPLETE, -1) == HRACE_EV_OK && check(HRACE_EC_WAIT, -1) == HRACE_EV_OK,
     "started and posted: complete and wait are valid");
  memset(start_group, 0, sizeof start_group);   /* complete, wait */
  w.started = w.posted = 0;
  ok(check(HRACE_EC_COMPLETE, -1) == HRACE_EV_NOT_OPEN && check(HRACE_EC_WAIT, -1) == HRACE_EV_NOT_OPEN,
     "after complete and wait: a second of either is misuse");
  return tap_done();
}
