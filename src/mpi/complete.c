/* Request completion and persistent requests. Every request any Wait* / Test* completes gets
 * its completion action from the request table (reqtab.h: unpack + join for receives, the
 * synchronous sender's answer, a collective's exchange, another layer's watch with the handle
 * it had before MPI reset it).
 *
 *   call                  completed requests                          notes
 *   Wait, Test(flag)      the one                                     inactive persistent: nothing
 *   Waitall, Testall      all (Testall: only if flag)                 MPI_ERR_IN_STATUS: those whose
 *                                                                     status says MPI_SUCCESS
 *   Waitany, Testany      the one at *index (unless MPI_UNDEFINED)
 *   Waitsome, Testsome    indices[0 .. *outcount)                     partial completion
 *   Request_get_status    the one, without freeing it: the step runs once, the later Wait
 *                         only frees
 *   Request_free          an active request is kept by hrace and finished later (its data
 *                         still lands); no edge, since nobody waits for it
 *   Cancel                nothing now; the cancelled completion joins nothing
 * Every form takes its requests' states out of the table before the real call (see before()). */
#include <stdlib.h>
#include <string.h>

#include "core/chan.h"
#include "mpi/handlers.h"
#include "mpi/posted.h"
#include "mpi/reqtab.h"

void hrace__rs_buffers(hrace_rs_t *s, const void *buf, int count, MPI_Datatype type, int writes) {
  hrace__rs_buffers_done(s);
  hrace_nbbuf_t b = { buf, count, type, writes };
  s->nbbuf = hrace__nb_track(&b, 1, s->fn, s->pc);
}

void hrace__rs_complete(hrace_rs_t *s, MPI_Status *st, int active) {
  hrace__rs_buffers_done(s);
  switch (s->kind) {
  case HRACE_RS_SEND:
    if (!s->started) return;
    s->started = 0;
    if (!s->done && s->mode == HRACE_MODE_S && active && s->active) {
      if (!hrace__status_cancelled(st)) hrace__ssend_fetch(s->rec, s->peer, s->tag, s->sync_id, s->fn);
    }
    s->done = 0;
    break;
  case HRACE_RS_RECV:
    if (!s->started) return;
    s->started = 0;
    hrace__p2p_recv_complete(s, st, active);
    break;
  case HRACE_RS_COLL:
    hrace__coll_complete(s, active);
    break;
  case HRACE_RS_IDUP:
    PMPI_Wait(&s->shadow_req[0], MPI_STATUS_IGNORE);
    if (*s->newcomm != MPI_COMM_NULL) hrace__comm_register(*s->newcomm, s->shadow_comm, s->sync_id);
    else if (s->shadow_comm != MPI_COMM_NULL) PMPI_Comm_free(&s->shadow_comm);
    break;
  case HRACE_RS_WATCH:
    s->watch(s->watch_arg, s->watch_req, st);
    break;
  }
  if (!s->persistent) hrace__rs_free(s);
}

/* Scratch for handles and statuses of the array calls. */
typedef struct arr { MPI_Request *old; MPI_Status *st; MPI_Request sold[16]; MPI_Status sst[16]; } arr_t;

/* want_st 0: no status array at all (Waitany / Testany complete one request into their own). */
static void arr_init(arr_t *a, int n, const MPI_Request reqs[], MPI_Status *sts, int want_st) {
  a->old = n <= 16 ? a->sold : malloc(n * sizeof *a->old);
  a->st = !want_st ? a->sst : sts != MPI_STATUSES_IGNORE ? sts : n <= 16 ? a->sst : malloc(n * sizeof *a->st);
  if ((n && !a->old) || (n && !a->st)) abort();
  if (n > 0) hrace__copy(a->old, reqs, n * sizeof *a->old);   /* not through the memcpy interposer */
}
static void arr_free(arr_t *a, MPI_Status *sts) {
  if (a->old != a->sold) free(a->old);
  if (a->st != sts && a->st != a->sst) free(a->st);
}
static int ok_in(int rc, const MPI_Status *st) {
  return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && st->MPI_ERROR == MPI_SUCCESS);
}

/* The state of a request about to be waited for or tested is taken out of the table before
 * the real call: once MPI completes and frees a request, another thread may get the same
 * handle for a new request and put its state under it before this thread looks the handle
 * up, which would then find (and complete) the other thread's state and lose its own
 * (MPI_THREAD_MULTIPLE: mpi_threads_norace's buffers stayed in flight for ever; in
 * mpi_threads_any_norace a receive finished by Waitany was never unpacked). After the call
 * the states of requests the call did not complete, or kept (persistent), go back under their
 * handle, which is still theirs. Every form below does this, the array forms with one lock
 * pair for the whole array (held_t); MPI_Request_free too. Request_get_status frees nothing,
 * so it may look up after the call. */
static hrace_rs_t *before(MPI_Request old) { return old == MPI_REQUEST_NULL ? NULL : hrace__rs_take(old); }
static void after(hrace_rs_t *s, MPI_Request old, MPI_Request now, MPI_Status *st, int done, int active) {
  if (!s) return;
  if (!done || now != MPI_REQUEST_NULL) hrace__rs_put_back(old, s);
  if (done) hrace__rs_complete(s, st, active);
}

/* The states of an array call's n requests while it runs; st[i] is set after the call to
 * the status of request i if the call completed it, and stays NULL otherwise. */
typedef struct held {
  hrace_rs_t **s;
  MPI_Status **st;
  hrace_rs_t *ss[16];
  MPI_Status *sst[16];
} held_t;

static void hold(held_t *h, int n, const MPI_Request old[]) {
  h->s = n <= 16 ? h->ss : malloc(n * sizeof *h->s);
  h->st = n <= 16 ? h->sst : malloc(n * sizeof *h->st);
  if (!h->s || !h->st) abort();
  hrace__rs_take_n(n, old, h->s);
  for (int i = 0; i < n; i++) h->st[i] = NULL;
}

/* Put back what stays (one lock pair), then complete what completed. */
static void release(held_t *h, int n, const MPI_Request old[], const MPI_Request now[], int active) {
  hrace_rs_t *cs[16], **c = cs;
  int back = 0, ndone = 0;
  for (int i = 0; i < n; i++) {
    if (!h->s[i]) continue;
    ndone += h->st[i] != NULL;
    back += !h->st[i] || now[i] != MPI_REQUEST_NULL;
  }
  if (ndone) {
    /* Completed states, copied out of h->s; those that leave the table are dropped from it. */
    if (n > 16 && !(c = malloc(n * sizeof *c))) abort();
    for (int i = 0; i < n; i++) {
      c[i] = h->st[i] ? h->s[i] : NULL;
      if (h->st[i] && now[i] == MPI_REQUEST_NULL) h->s[i] = NULL;
    }
  }
  if (back) hrace__rs_put_n(n, old, h->s);
  if (ndone) {
    for (int i = 0; i < n; i++)
      if (c[i]) hrace__rs_complete(c[i], h->st[i], active);
    if (c != cs) free(c);
  }
  if (h->s != h->ss) free(h->s);
  if (h->st != h->sst) free(h->st);
}

/* MPI_Wait and MPI_Waitall serve hrace's own requests while they wait, as MPI_Barrier does
 * (coll.c, wait_serving; docs/mpi.md, "Waits that serve"). A halo exchange waits for its
 * neighbours' messages right after its flushes; the neighbour that sent them pinged this
 * process first (its unacknowledged flush COMPLETE, docs/rma.md), and the ping was answered
 * by this process's progress thread, woken by a doorbell on the core where this thread spun
 * inside PMPI_Waitall: a wake-up and two context switches per epoch, which made the lock_all
 * stencil's MPI layer 2.6x the plain run at the small size. So the wait tests its requests
 * and reads the channel in turn, counted as a reader of the rings meanwhile (senders ring no
 * doorbell: core/chan.h, hrace__chan_spin). It holds no lock a handler takes: the requests'
 * states are out of the table (before(), hold()). MPI_Testall on requests that are not all
 * complete changes none of them; once it returns flag 1, its requests and statuses are what
 * MPI_Waitall's would be. An error (under MPI_ERRORS_RETURN only) is returned as MPI_Testall
 * reported it. */
typedef struct serve_wait {
  int n, rc;
  MPI_Request *reqs;
  MPI_Status *st;
} serve_wait_t;

static int tested(void *p) {
  serve_wait_t *a = p;
  hrace__chan_help(1);
  int flag = 0;
  a->rc = PMPI_Testall(a->n, a->reqs, &flag, a->st);
  return flag || a->rc != MPI_SUCCESS;
}

/* Point-to-point requests only: MPICH 4.0.2's MPI_Testall fails on partitioned requests and
 * on persistent collectives (nb_part_*, nb_pcoll_*: "Fatal error in internal_Testall"), which
 * its MPI_Waitall completes; requests hrace has no state for (generalized ones) and the other
 * kinds wait in the blocking call as before. */
static int p2p(const hrace_rs_t *s) {
  return s && (s->kind == HRACE_RS_SEND || s->kind == HRACE_RS_RECV);
}

/* hrace__chan_spin looks once before its first yield: each round starts with a look. */
#define SERVE_SPIN_NS 1000000L   /* then look again whether spinning is still wanted */
static int wait_serving(int n, MPI_Request reqs[], MPI_Status st[], int serve) {
  if (!serve) return PMPI_Waitall(n, reqs, st);
  serve_wait_t a = { n, MPI_SUCCESS, reqs, st };
  while (!hrace__chan_spin(1, tested, &a, SERVE_SPIN_NS)) {}
  return a.rc;
}

int hrace__h_wait(MPI_Request *req, MPI_Status *status, int active) {
  MPI_Request old = *req;
  MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  hrace_rs_t *s = before(old);
  int rc = wait_serving(1, req, st, active && p2p(s));
  if (rc == MPI_ERR_IN_STATUS) rc = st->MPI_ERROR;   /* MPI_Wait returns the request's error */
  after(s, old, *req, st, rc == MPI_SUCCESS, active);
  hrace__rs_poll_orphans(0);
  return rc;
}

int hrace__h_test(MPI_Request *req, int *flag, MPI_Status *status, int active) {
  MPI_Request old = *req;
  MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  hrace_rs_t *s = before(old);
  int rc = PMPI_Test(req, flag, st);
  after(s, old, *req, st, rc == MPI_SUCCESS && *flag, active);
  hrace__rs_poll_orphans(0);
  return rc;
}

int hrace__h_waitall(int n, MPI_Request reqs[], MPI_Status sts[], int active) {
  if (n <= 0) return PMPI_Waitall(n, reqs, sts);
  arr_t a;
  held_t h;
  arr_init(&a, n, reqs, sts, 1);
  hold(&h, n, a.old);
  int serve = active;
  for (int i = 0; i < n && serve; i++) serve = a.old[i] == MPI_REQUEST_NULL || p2p(h.s[i]);
  int rc = wait_serving(n, reqs, a.st, serve);
  for (int i = 0; i < n; i++)
    if (ok_in(rc, &a.st[i])) h.st[i] = &a.st[i];
  release(&h, n, a.old, reqs, active);
  arr_free(&a, sts);
  return rc;
}

int hrace__h_testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[], int active) {
  if (n <= 0) return PMPI_Testall(n, reqs, flag, sts);
  arr_t a;
  held_t h;
  arr_init(&a, n, reqs, sts, 1);
  hold(&h, n, a.old);
  int rc = PMPI_Testall(n, reqs, flag, a.st);
  for (int i = 0; i < n; i++)
    if ((rc == MPI_SUCCESS && *flag) || (rc == MPI_ERR_IN_STATUS && a.st[i].MPI_ERROR == MPI_SUCCESS))
      h.st[i] = &a.st[i];
  release(&h, n, a.old, reqs, active);
  arr_free(&a, sts);
  return rc;
}

int hrace__h_waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status, int active) {
  if (n <= 0) return PMPI_Waitany(n, reqs, index, status);
  arr_t a;
  held_t h;
  arr_init(&a, n, reqs, MPI_STATUSES_IGNORE, 0);
  hold(&h, n, a.old);
  MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  int rc = PMPI_Waitany(n, reqs, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) h.st[*index] = st;
  release(&h, n, a.old, reqs, active);
  arr_free(&a, MPI_STATUSES_IGNORE);
  return rc;
}

int hrace__h_testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status, int active) {
  if (n <= 0) return PMPI_Testany(n, reqs, index, flag, status);
  arr_t a;
  held_t h;
  arr_init(&a, n, reqs, MPI_STATUSES_IGNORE, 0);
  hold(&h, n, a.old);
  MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  int rc = PMPI_Testany(n, reqs, index, flag, st);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) h.st[*index] = st;
  release(&h, n, a.old, reqs, active);
  arr_free(&a, MPI_STATUSES_IGNORE);
  return rc;
}

static int some(int wait, int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[], int active) {
  if (n <= 0) return wait ? PMPI_Waitsome(n, reqs, outcount, idx, sts) : PMPI_Testsome(n, reqs, outcount, idx, sts);
  arr_t a;
  held_t h;
  arr_init(&a, n, reqs, sts, 1);
  hold(&h, n, a.old);
  int rc = wait ? PMPI_Waitsome(n, reqs, outcount, idx, a.st) : PMPI_Testsome(n, reqs, outcount, idx, a.st);
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
    for (int k = 0; k < *outcount; k++)
      if (ok_in(rc, &a.st[k])) h.st[idx[k]] = &a.st[k];
  release(&h, n, a.old, reqs, active);
  arr_free(&a, sts);
  return rc;
}

int hrace__h_waitsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[], int active) {
  return some(1, n, reqs, outcount, idx, sts, active);
}
int hrace__h_testsome(int n, MPI_Request reqs[], int *outcount, int idx[], MPI_Status sts[], int active) {
  return some(0, n, reqs, outcount, idx, sts, active);
}

/* Request_get_status completes without freeing: the handle stays the request's, so the state
 * can be looked up after the call. */
int hrace__h_get_status(MPI_Request req, int *flag, MPI_Status *status, int active) {
  MPI_Status tmp, *st = status == MPI_STATUS_IGNORE ? &tmp : status;
  int rc = PMPI_Request_get_status(req, flag, st);
  if (rc != MPI_SUCCESS || !*flag) return rc;
  hrace_rs_t *s = hrace__rs_get(req);
  if (s) hrace__rs_buffers_done(s);
  if (s && s->kind == HRACE_RS_RECV && s->started) {
    hrace__p2p_recv_complete(s, st, active);   /* sets done: the later Wait only frees */
  } else if (s && s->kind == HRACE_RS_SEND && s->started && !s->done && s->mode == HRACE_MODE_S &&
             active && s->active) {
    if (!hrace__status_cancelled(st)) hrace__ssend_fetch(s->rec, s->peer, s->tag, s->sync_id, s->fn);
    s->done = 1;
  }
  return rc;
}

/* ---- persistent requests --------------------------------------------------------------- */
static void prepare(MPI_Request r, int active) {
  hrace_rs_t *s = hrace__rs_get(r);
  if (!s || !s->persistent) return;
  if (s->kind == HRACE_RS_SEND) hrace__p2p_start_send(s, active);
  else if (s->kind == HRACE_RS_RECV) hrace__p2p_start_recv(s, active);
}

static void started(MPI_Request r, int rc, int active) {
  hrace_rs_t *s = hrace__rs_get(r);
  if (!s || !s->persistent) return;
  if (rc != MPI_SUCCESS) {
    if (s->post) hrace__post_done(s->post, NULL, -1, -1), s->post = NULL;
    return;
  }
  if (s->kind == HRACE_RS_COLL) {
    hrace__coll_started(s, active);
    return;
  }
  s->started = 1;
  s->done = 0;
  if (active && s->active) hrace__rs_buffers(s, s->buf, s->count, s->type, s->kind == HRACE_RS_RECV);
  if (s->kind == HRACE_RS_SEND && active) hrace__signal_done(s->fn);
}

int hrace__h_start(MPI_Request *req, int active) {
  prepare(*req, active);
  int rc = PMPI_Start(req);
  started(*req, rc, active);
  return rc;
}

int hrace__h_startall(int n, MPI_Request reqs[], int active) {
  for (int i = 0; i < n; i++) prepare(reqs[i], active);
  int rc = PMPI_Startall(n, reqs);
  for (int i = 0; i < n; i++) started(reqs[i], rc, active);
  return rc;
}

int hrace__h_request_free(MPI_Request *req, int active) {
  MPI_Request old = *req;
  hrace_rs_t *s = before(old);   /* the handle is free for reuse once the call returns */
  if (!s || (s->persistent && !s->started) || s->kind == HRACE_RS_IDUP || s->kind == HRACE_RS_COLL ||
      s->kind == HRACE_RS_WATCH) {
    int rc = PMPI_Request_free(req);
    if (rc != MPI_SUCCESS && s) hrace__rs_put_back(old, s);
    if (rc == MPI_SUCCESS) {
      hrace_rs_t *t = s;
      if (t) {
        if (t->post) hrace__post_done(t->post, NULL, -1, -1), t->post = NULL;
        /* a freed Rput still completes, at the next synchronisation */
        if (t->kind == HRACE_RS_WATCH) t->watch(t->watch_arg, old, NULL);
        hrace__rs_free(t);
      }
    }
    return rc;
  }
  /* Active: MPI would finish it unseen; hrace keeps the handle and finishes it itself. */
  hrace__rs_orphan(old, s);
  *req = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

int hrace__h_cancel(MPI_Request *req, int active) {
  MPI_Request old = *req;
  int rc = PMPI_Cancel(req);
  hrace_rs_t *s = rc == MPI_SUCCESS ? hrace__rs_get(old) : NULL;
  if (s && s->kind == HRACE_RS_WATCH) hrace__rs_free(hrace__rs_take(old));   /* dropped, not run */
  return rc;
}
