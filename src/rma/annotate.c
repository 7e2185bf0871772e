/* User annotations (include/hrace.h; docs/rma.md, "Annotations") and MPI_Pcontrol, which carries them
 * for programs that do not link hrace.
 *
 *   annotation               message                        clock action
 *   process_signal(r, tag)   PSIG -> r's progress thread    signal: deposit, then tick
 *   process_wait(o, tag)     - (waits for o's PSIG here)    wait: join the deposit
 *   resource_signal(R)       RSIG -> owner, acknowledged    signal: join into R's clock, tick
 *   resource_wait(R)         RWAIT -> owner, GRANT back     wait: join R's clock
 *
 * Both resource calls mark R's bytes as a synchronisation variable at the owner (shadow.h)
 * before they return, so the flag's own accesses after the signal are not reported: the put
 * that sets the flag follows the acknowledged signal, and the owner's polling loads that see
 * it do too. Deposits live under the registry lock, which the progress thread holds. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/hb.h"
#include "hrace.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/protocol.h"
#include "rma/rma.h"
#include "wrappers.h"

#define WAIT_NOTE_MS 10000     /* a process wait this long names what it waits for */

typedef struct psig {
  int origin, tag;
  hrace_vc_t vc;
  struct psig *next;
} psig_t;
static psig_t *psigs, **psigs_tail = &psigs;   /* in arrival order */

void hrace__annotate_on_psig(const hrace_msg_t *h, const hrace_clk_t *vc) {
  psig_t *s = calloc(1, sizeof *s);
  if (!s) abort();
  s->origin = h->origin;
  s->tag = h->tag;
  hrace__vc_init(&s->vc, h->vc_n);
  memcpy(s->vc.c, vc, h->vc_n * sizeof *vc);
  *psigs_tail = s;
  psigs_tail = &s->next;
}

static void do_process_signal(int rank, int tag, uintptr_t pc) {
  if (rank < 0 || rank >= hrace__proc.size) {
    hrace__report_misuse(pc, "hrace_process_signal to rank %d, which is not a rank of "
                         "MPI_COMM_WORLD (size %d)", rank, hrace__proc.size);
    return;
  }
  hrace_msg_t h = { .type = HRACE_MSG_PSIG, .origin = hrace__proc.rank,
                    .thread = hrace__thread()->tid, .tag = tag };
  hrace__ctl_send(rank, &h, NULL, hrace__signal_clock(), NULL, NULL);
  hrace__signal_done("hrace_process_signal");
}

static void do_process_wait(int rank, int tag, uintptr_t pc) {
  if (rank < 0 || rank >= hrace__proc.size) {
    hrace__report_misuse(pc, "hrace_process_wait for rank %d, which is not a rank of "
                         "MPI_COMM_WORLD (size %d)", rank, hrace__proc.size);
    return;
  }
  long waited = 0;
  hrace__win_lock();
  for (;;) {
    psig_t **p = &psigs;
    while (*p && ((*p)->origin != rank || (*p)->tag != tag)) p = &(*p)->next;
    if (*p) {
      psig_t *s = *p;
      *p = s->next;
      if (!*p) psigs_tail = p;
      hrace__win_unlock();
      hrace__wait(s->vc.c, s->vc.n, "hrace_process_wait");
      hrace__vc_free(&s->vc);
      free(s);
      return;
    }
    if (hrace__win_wait(100) == ETIMEDOUT) waited += 100;
    if (waited == WAIT_NOTE_MS) {
      hrace__win_unlock();
      hrace__report_misuse(pc, "hrace_process_wait has waited %d s for hrace_process_signal from "
                           "rank %d with tag %d", WAIT_NOTE_MS / 1000, rank, tag);
      hrace__win_lock();
    }
  }
}

/* ---- resources ----------------------------------------------------------------------- */

/* Caller holds the registry lock. The resource at byte offset off of w, created if new. */
static hrace_resource_t *resource(hrace_win_t *w, uint64_t off) {
  hrace_resource_t *r = w->resources;
  while (r && r->off != off) r = r->next;
  if (!r) {
    if (!(r = calloc(1, sizeof *r))) abort();
    r->off = off;
    hrace__vc_init(&r->vc, hrace__clock_len());
    r->next = w->resources;
    w->resources = r;
  }
  return r;
}

static void mark(hrace_win_t *w, uint64_t off, uint64_t len) {
  uint64_t rel;
  hrace_win_t *s = hrace__win_segment(w, off, len, &rel);
  if (s) hrace__shadow_mark_sync(&s->cells, rel, len);
}

void hrace__annotate_on_rsig(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges,
                             const hrace_clk_t *vc) {
  if (h->nranges == 1) {
    hrace__vc_join_raw(&resource(w, ranges[0])->vc, vc, h->vc_n);
    mark(w, ranges[0], ranges[1]);
  }
  hrace__ctl_reply(h->origin, h->reply_tag, HRACE_MSG_ACK, NULL);
}

void hrace__annotate_on_rwait(hrace_win_t *w, const hrace_msg_t *h, const uint64_t *ranges) {
  const hrace_vc_t *vc = NULL;
  if (h->nranges == 1) {
    vc = &resource(w, ranges[0])->vc;
    mark(w, ranges[0], ranges[1]);
  }
  hrace__ctl_reply(h->origin, h->reply_tag, HRACE_MSG_GRANT, vc);
}

/* The resource's owner (world rank) and byte range there, or -1 (reported). */
static int locate(hrace_win_t *w, int rank, MPI_Aint disp, MPI_Aint size, uint64_t range[2],
                  const char *call, uintptr_t pc) {
  if (rank < 0 || rank >= w->gsize) {
    hrace__report_misuse(pc, "%s: rank %d is not in the group of window %s (size %d)", call,
                         rank, w->name, w->gsize);
    return -1;
  }
  range[0] = (uint64_t)disp * (uint64_t)w->disp_units[rank];
  range[1] = size > 0 ? (uint64_t)size : 1;
  if (w->kind != HRACE_WIN_DYNAMIC &&
      (range[0] >= w->sizes[rank] || range[1] > w->sizes[rank] - range[0])) {
    hrace__report_misuse(pc, "%s: bytes [%llu,%llu) are outside window %s at rank %d (%llu "
                         "bytes)", call, (unsigned long long)range[0],
                         (unsigned long long)(range[0] + range[1]), w->name, rank,
                         (unsigned long long)w->sizes[rank]);
    return -1;
  }
  return hrace__win_world(w, rank);
}

static void do_resource(int signal, MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size,
                        uintptr_t pc) {
  const char *call = signal ? "hrace_resource_signal" : "hrace_resource_wait";
  hrace_win_t *w = hrace__win_of(win);
  if (!w) {
    hrace__report_misuse(pc, "%s on a window hrace does not know", call);
    return;
  }
  uint64_t range[2];
  int owner = locate(w, rank, disp, size, range, call, pc);
  if (owner < 0) return;
  hrace_msg_t h = hrace__rma_msg(w, signal ? HRACE_MSG_RSIG : HRACE_MSG_RWAIT);
  h.nranges = 1;
  if (signal) {
    hrace__ctl_send(owner, &h, range, hrace__signal_clock(), NULL, NULL);
    hrace__ctl_wait_reply(owner, HRACE_MSG_ACK, NULL);
    hrace__signal_done(call);
  } else {
    hrace_vc_t got;
    hrace__vc_init(&got, hrace__clock_len());
    hrace__ctl_send(owner, &h, range, NULL, NULL, NULL);
    hrace__ctl_wait_reply(owner, HRACE_MSG_GRANT, &got);
    hrace__wait(got.c, got.n, call);
    hrace__vc_free(&got);
  }
}

/* ---- entry points -------------------------------------------------------------------- */

#define ANNOTATION(body)              \
  HRACE_ENTER();                      \
  if (HRACE_ACTIVE()) body;           \
  HRACE_LEAVE()

HRACE_EXPORT void hrace_process_signal(int rank, int tag) {
  ANNOTATION(do_process_signal(rank, tag, HRACE_CALLER()));
}

HRACE_EXPORT void hrace_process_wait(int rank, int tag) {
  ANNOTATION(do_process_wait(rank, tag, HRACE_CALLER()));
}

HRACE_EXPORT void hrace_resource_signal(MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size) {
  ANNOTATION(do_resource(1, win, rank, disp, size, HRACE_CALLER()));
}

HRACE_EXPORT void hrace_resource_wait(MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size) {
  ANNOTATION(do_resource(0, win, rank, disp, size, HRACE_CALLER()));
}

/* MPI_Pcontrol(level, ...) (the handler of its generated wrapper, which passes the variable
 * arguments as ap): hrace's levels carry annotations; any other level goes to MPI (whose
 * MPI_Pcontrol ignores the variable arguments, so none are lost). */
int hrace__h_pcontrol(const int level, va_list ap, int active, uintptr_t ret) {
  int rc = MPI_SUCCESS;
  uintptr_t pc = hrace__caller(ret);
  switch (level) {
  case HRACE_PCONTROL_PROCESS_SIGNAL:
  case HRACE_PCONTROL_PROCESS_WAIT: {
    int rank = va_arg(ap, int), tag = va_arg(ap, int);
    if (active) {
      if (level == HRACE_PCONTROL_PROCESS_SIGNAL) do_process_signal(rank, tag, pc);
      else do_process_wait(rank, tag, pc);
    }
    break;
  }
  case HRACE_PCONTROL_RESOURCE_SIGNAL:
  case HRACE_PCONTROL_RESOURCE_WAIT: {
    MPI_Win win = va_arg(ap, MPI_Win);
    int rank = va_arg(ap, int);
    MPI_Aint disp = va_arg(ap, MPI_Aint), size = va_arg(ap, MPI_Aint);
    if (active) do_resource(level == HRACE_PCONTROL_RESOURCE_SIGNAL, win, rank, disp, size, pc);
    break;
  }
  default:
    rc = PMPI_Pcontrol(level);
  }
  return rc;
}
