/* The progress thread and the origin <-> target message protocol (see protocol.h).
 *
 * Each process runs one progress thread that receives requests on hrace's communicator and
 * applies them: operation records into the window shadow, completions, lock tokens. A target
 * that computes, sleeps or polls its window therefore never delays an origin. The thread polls
 * with MPI_Improbe and backs off to sleeping when idle (Open MPI's blocking receive spins and
 * would take a core from the application). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "core/log.h"
#include "core/race.h"
#include "core/runtime.h"
#include "report/report.h"
#include "rma/protocol.h"
#include "rma/window.h"

/* ---- message encoding ---------------------------------------------------------------- */

void *hrace__msg_pack(const hrace_msg_t *h, const uint64_t *ranges, const hrace_vc_t *vc,
                      const char *func, const char *file, int *bytes) {
  hrace_msg_t hh = *h;
  hh.vc_n = vc ? vc->n : 0;
  hh.func_len = func ? (uint32_t)strlen(func) + 1 : 0;
  hh.file_len = file ? (uint32_t)strlen(file) + 1 : 0;
  size_t n = sizeof hh + hh.nranges * 2 * sizeof(uint64_t) + hh.vc_n * sizeof(hrace_clk_t) +
             hh.func_len + hh.file_len;
  char *buf = malloc(n), *p = buf;
  if (!buf) abort();
  memcpy(p, &hh, sizeof hh), p += sizeof hh;
  if (hh.nranges) memcpy(p, ranges, hh.nranges * 2 * sizeof(uint64_t)), p += hh.nranges * 2 * sizeof(uint64_t);
  if (hh.vc_n) memcpy(p, vc->c, hh.vc_n * sizeof(hrace_clk_t)), p += hh.vc_n * sizeof(hrace_clk_t);
  if (hh.func_len) memcpy(p, func, hh.func_len), p += hh.func_len;
  if (hh.file_len) memcpy(p, file, hh.file_len), p += hh.file_len;
  *bytes = (int)n;
  return buf;
}

int hrace__msg_unpack(void *buf, int bytes, hrace_msg_t **h, uint64_t **ranges, hrace_clk_t **vc,
                      const char **func, const char **file) {
  if (bytes < (int)sizeof(hrace_msg_t)) return -1;
  char *p = buf;
  hrace_msg_t *hh = buf;
  uint64_t need = sizeof *hh + (uint64_t)hh->nranges * 2 * sizeof(uint64_t) +
                  (uint64_t)hh->vc_n * sizeof(hrace_clk_t) + hh->func_len + hh->file_len;
  if (need != (uint64_t)bytes) return -1;
  p += sizeof *hh;
  *h = hh;
  *ranges = (uint64_t *)p, p += hh->nranges * 2 * sizeof(uint64_t);
  *vc = (hrace_clk_t *)p, p += hh->vc_n * sizeof(hrace_clk_t);
  *func = hh->func_len ? p : "??", p += hh->func_len;
  *file = hh->file_len ? p : "??";
  if (hh->func_len && (*func)[hh->func_len - 1]) return -1;
  if (hh->file_len && (*file)[hh->file_len - 1]) return -1;
  return 0;
}

/* ---- origin side ---------------------------------------------------------------------- */

void hrace__ctl_send(int target, const hrace_msg_t *h, const uint64_t *ranges,
                     const hrace_vc_t *vc, const char *func, const char *file) {
  int n;
  void *buf = hrace__msg_pack(h, ranges, vc, func, file, &n);
  /* Blocking send: the target's progress thread always drains its queue, so this returns as
   * soon as the message is buffered (eager) or received, never waiting on the application. */
  PMPI_Send(buf, n, MPI_BYTE, target, HRACE_TAG_CTL, hrace__proc.ctl);
  free(buf);
}

void hrace__ctl_wait_reply(int target, uint32_t type, hrace_vc_t *got) {
  hrace_thread_t *t = hrace__thread();
  MPI_Message m;
  MPI_Status st;
  int n;
  PMPI_Mprobe(target, t->reply_tag, hrace__proc.ctl, &m, &st);
  PMPI_Get_count(&st, MPI_BYTE, &n);
  void *buf = malloc(n > 0 ? n : 1);
  if (!buf) abort();
  PMPI_Mrecv(buf, n, MPI_BYTE, &m, &st);
  hrace_msg_t *h;
  uint64_t *ranges;
  hrace_clk_t *vc;
  const char *func, *file;
  if (hrace__msg_unpack(buf, n, &h, &ranges, &vc, &func, &file) || h->type != type)
    hrace__fatal("protocol error: bad reply from rank %d", target);
  if (got) hrace__vc_join_raw(got, vc, h->vc_n);
  free(buf);
}

/* ---- target side: handlers run on the progress thread only ---------------------------- */

static void reply(int to, int tag, uint32_t type, const hrace_vc_t *vc) {
  hrace_msg_t h = { .type = type, .origin = hrace__proc.rank };
  int n;
  void *buf = hrace__msg_pack(&h, NULL, vc, NULL, NULL, &n);
  PMPI_Send(buf, n, MPI_BYTE, to, tag, hrace__proc.ctl);
  free(buf);
}

static void push_pending(hrace_win_t *w, int origin, hrace_aid_t aid) {
  if (w->npending == w->cappending) {
    w->cappending = w->cappending ? 2 * w->cappending : 16;
    w->pending = realloc(w->pending, w->cappending * sizeof *w->pending);
    if (!w->pending) abort();
  }
  w->pending[w->npending++] = (hrace_pending_t){ origin, aid };
}

/* Fix the epoch of every operation of `origin` still in flight on w. */
static void complete_ops(hrace_win_t *w, int origin, hrace_clk_t c) {
  unsigned k = 0;
  for (unsigned i = 0; i < w->npending; i++) {
    if (w->pending[i].origin == origin)
      hrace__access_complete(hrace__access_get(w->pending[i].aid), c);
    else
      w->pending[k++] = w->pending[i];
  }
  w->npending = k;
}

static void on_op(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                  const hrace_clk_t *vc, const char *func, const char *file) {
  hrace_vc_t view = { .n = h->vc_n, .c = (hrace_clk_t *)vc };
  hrace_access_t a = {
    .exporter = (uint32_t)h->origin, .flags = h->flags, .op = h->op,
    .atomic_class = h->atomic_class, .rank = h->origin, .thread = h->thread,
    .loc = hrace__site_intern(func, file, h->line),
  };
  atomic_init(&a.clk, HRACE_CLK_INF);   /* in flight until COMPLETE / UNLOCK */
  hrace_aid_t aid = hrace__access_new(&a);
  uint64_t base = h->disp * (uint64_t)w->disp_unit;
  for (uint32_t i = 0; i < h->nranges; i++) {
    uint64_t off = base + ranges[2 * i], len = ranges[2 * i + 1];
    if (off > w->size || len > w->size - off) {
      hrace__report_misuse(0, "%s from rank %d at %s (%s:%d) accesses bytes [%llu,%llu) of "
                           "window %s, which has %llu bytes at rank %d",
                           hrace__op_name(h->op), h->origin, func, file, h->line,
                           (unsigned long long)off, (unsigned long long)(off + len), w->name,
                           (unsigned long long)w->size, hrace__proc.rank);
      if (off >= w->size) continue;
      len = w->size - off;
    }
    hrace__shadow_access(&w->cells, off, len, aid, &view, hrace__race_sink, w);
  }
  push_pending(w, h->origin, aid);
}

static int grantable(const hrace_win_t *w, uint32_t type) {
  if (type == HRACE_LOCK_EXCL) return !w->holders_excl && !w->holders_shared;
  return !w->holders_excl;
}

static void grant(hrace_win_t *w, int origin, int tag, uint32_t type) {
  if (type == HRACE_LOCK_EXCL) w->holders_excl++;
  else w->holders_shared++;
  /* An exclusive epoch follows every earlier unlock; a shared one only the exclusive ones
   * (shared locks do not order each other). */
  reply(origin, tag, HRACE_MSG_GRANT, type == HRACE_LOCK_EXCL ? &w->rel_all : &w->rel_excl);
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
  complete_ops(w, h->origin, h->complete);
  hrace__vc_join_raw(&w->rel_all, vc, h->vc_n);
  if (h->lock_type == HRACE_LOCK_EXCL) {
    hrace__vc_join_raw(&w->rel_excl, vc, h->vc_n);
    if (w->holders_excl) w->holders_excl--;
  } else if (w->holders_shared) {
    w->holders_shared--;
  }
  reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
  unsigned k = 0;
  while (k < w->nwaiters && grantable(w, (uint32_t)w->waiters[k].type)) {
    grant(w, w->waiters[k].origin, w->waiters[k].reply_tag, (uint32_t)w->waiters[k].type);
    k++;
  }
  memmove(w->waiters, w->waiters + k, (w->nwaiters - k) * sizeof *w->waiters);
  w->nwaiters -= k;
}

/* Returns 0 to stop. */
static int handle(void *buf, int n, int source) {
  hrace_msg_t *h;
  uint64_t *ranges;
  hrace_clk_t *vc;
  const char *func, *file;
  if (hrace__msg_unpack(buf, n, &h, &ranges, &vc, &func, &file)) {
    hrace__warn("protocol error: malformed message of %d bytes from rank %d dropped", n, source);
    return 1;
  }
  if (h->type == HRACE_MSG_STOP) return 0;
  hrace_win_t *w = hrace__win_by_id(h->win);
  if (!w) {
    /* Only an erroneous program gets here (operation on a window already freed at the target). */
    hrace__warn("message %u for unknown window id %u from rank %d dropped", h->type, h->win, source);
    if (h->type == HRACE_MSG_COMPLETE || h->type == HRACE_MSG_UNLOCK)
      reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
    else if (h->type == HRACE_MSG_LOCK)
      reply(h->origin, h->reply_tag, HRACE_MSG_GRANT, NULL);
    return 1;
  }
  switch (h->type) {
  case HRACE_MSG_OP: on_op(w, h, ranges, vc, func, file); break;
  case HRACE_MSG_COMPLETE:
    complete_ops(w, h->origin, h->complete);
    reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
    break;
  case HRACE_MSG_LOCK: on_lock(w, h); break;
  case HRACE_MSG_UNLOCK: on_unlock(w, h, vc); break;
  default: hrace__warn("protocol error: message type %u from rank %d dropped", h->type, source);
  }
  return 1;
}

static pthread_t progress;
static int progress_running;

static void *progress_main(void *arg) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, NULL);   /* the application's handlers run on its threads */
  prctl(PR_SET_TIMERSLACK, 1000UL);         /* 1 us: short idle sleeps stay short */
  hrace__thread_internal();                 /* nothing here is the application's */
  long idle = 0;
  for (;;) {
    int flag = 0, n;
    MPI_Message m;
    MPI_Status st;
    PMPI_Improbe(MPI_ANY_SOURCE, HRACE_TAG_CTL, hrace__proc.ctl, &flag, &m, &st);
    if (!flag) {
      /* Back off: poll hot for a while after traffic, then sleep 2 us .. 1 ms. */
      if (++idle > 200) {
        long ns = idle > 2200 ? 1000000 : (idle - 200) * 500;
        struct timespec ts = { 0, ns < 2000 ? 2000 : ns };
        nanosleep(&ts, NULL);
      }
      continue;
    }
    idle = 0;
    PMPI_Get_count(&st, MPI_BYTE, &n);
    void *buf = malloc(n > 0 ? n : 1);
    if (!buf) abort();
    PMPI_Mrecv(buf, n, MPI_BYTE, &m, &st);
    hrace__win_lock();
    int go = handle(buf, n, st.MPI_SOURCE);
    hrace__win_unlock();
    free(buf);
    if (!go) break;
  }
  return NULL;
}

void hrace__progress_start(void) {
  if (pthread_create(&progress, NULL, progress_main, NULL))
    hrace__fatal("cannot start the progress thread: %s", strerror(errno));
  progress_running = 1;
}

void hrace__progress_stop(void) {
  if (!progress_running) return;
  hrace_msg_t h = { .type = HRACE_MSG_STOP, .origin = hrace__proc.rank };
  hrace__ctl_send(hrace__proc.rank, &h, NULL, NULL, NULL, NULL);
  pthread_join(progress, NULL);
  progress_running = 0;
}
