/* RMA operations: misuse checks, the real call, then one record to the target and the origin
 * buffers in flight (see rma.h). Each wrapper only says what its call accesses:
 *
 *   call                  at the target                       origin-side buffers
 *   Put / Rput            write                               origin: read
 *   Get / Rget            read                                origin: written
 *   Accumulate / Racc     atomic read-modify-write            origin: read
 *                         (MPI_REPLACE: atomic write)
 *   Get_accumulate /      atomic read-modify-write            origin: read (not for NO_OP),
 *   Rget_accumulate       (MPI_NO_OP: atomic read,            result: written
 *                          MPI_REPLACE: atomic write)
 *   Fetch_and_op          as Get_accumulate, one element      origin (not NO_OP), result
 *   Compare_and_swap      atomic read-modify-write            origin, compare: read; result
 *
 * "Atomic" is per element of the target datatype's predefined type (MPI-3.1 Sec. 11.7.1):
 * accumulate-family accesses with the same predefined type don't race each other. */
#include "rma/rma.h"

#include <stdlib.h>
#include <string.h>
#include "base/hash.h"
#include "core/hooks.h"
#include "core/race.h"
#include "mpi/argcheck.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "report/symbolize.h"
#include "rma/buffers.h"
#include "rma/protocol.h"
#include "rma/shared.h"
#include "rma/type.h"
#include "wrappers.h"

int hrace__rma_in_epoch(const hrace_win_t *w, int target) {
  return w->fence_epoch || w->lock_all || w->lock[target] != HRACE_LOCK_NONE ||
         (w->started && w->start_group[target]);
}

uint32_t hrace__rma_epoch_kind(const hrace_win_t *w, int target) {
  if (target >= 0 && target < w->gsize && w->lock[target] == HRACE_LOCK_EXCL) return HRACE_EPOCH_EXCL;
  if (w->lock_all) return HRACE_EPOCH_LOCK_ALL;
  if (target >= 0 && target < w->gsize && w->lock[target] == HRACE_LOCK_SHARED) return HRACE_EPOCH_SHARED;
  if (w->started && target >= 0 && target < w->gsize && w->start_group[target]) return HRACE_EPOCH_PSCW;
  if (w->fence_epoch) return HRACE_EPOCH_FENCE;
  return HRACE_EPOCH_NONE;
}

const char *hrace__rma_epoch_label(uint32_t kind) {
  switch (kind) {
  case HRACE_EPOCH_EXCL: return "an exclusive lock epoch (MPI_Win_lock)";
  case HRACE_EPOCH_SHARED: return "a shared lock epoch (MPI_Win_lock)";
  case HRACE_EPOCH_LOCK_ALL: return "a lock_all epoch (MPI_Win_lock_all)";
  case HRACE_EPOCH_PSCW: return "an access epoch opened by MPI_Win_start";
  case HRACE_EPOCH_FENCE: return "a fence epoch (MPI_Win_fence)";
  default: return NULL;
  }
}

hrace_msg_t hrace__rma_msg(const hrace_win_t *w, uint32_t type) {
  return (hrace_msg_t){ .type = type, .win = w->id, .origin = hrace__proc.rank,
                        .thread = hrace__thread()->tid, .reply_tag = hrace__thread()->reply_tag,
                        .exporter = hrace__thread_exporter(), .complete = hrace__thread_epoch() };
}

uint32_t hrace__rma_atomic_class(MPI_Datatype dt) { return hrace__rma_atomic_class_at(dt, 0); }

uint32_t hrace__rma_atomic_class_at(MPI_Datatype dt, uint64_t offset) {
  /* The class must be equal at every origin: handles are addresses in Open MPI and differ
   * between processes, names of predefined types don't. Hash the element type's name
   * (base/hash.h: FNV-1a, the same in every process). Atomicity is per element (MPI-3.1 Sec.
   * 11.7.1: "accumulate operations ... with the same predefined datatype, on the same window
   * location"): two accumulates whose elements are shifted against each other (offsets that
   * differ by a non-multiple of the element size, e.g. with disp_unit 1) do not update the
   * same elements and race. The element's phase, the target offset modulo its size, goes into
   * the class: equal phases are the same elements, aligned or not. */
  char name[MPI_MAX_OBJECT_NAME + 1];
  int size = 0;
  if (hrace__type_element(dt, name, &size)) name[0] = 0;
  uint64_t h64 = hrace_hash_str(name, HRACE_HASH_SEED);
  if (size > 1 && offset % (uint64_t)size)
    h64 = hrace_hash_combine(h64, offset % (uint64_t)size);
  uint32_t h = (uint32_t)(h64 ^ (h64 >> 32));
  return h ? h : 1;
}

/* Drop the bytes of c's target ranges outside [0, size) after base; returns whether any were. */
static int clip(hrace_rma_call_t *c, uint64_t base, uint64_t size, uint64_t *lo, uint64_t *hi) {
  uint32_t k = 0;
  int out = 0;
  for (uint32_t i = 0; i < c->nranges; i++) {
    uint64_t off = base + c->ranges[2 * i], len = c->ranges[2 * i + 1];
    if (off <= size && len <= size - off) {
      c->ranges[2 * k] = c->ranges[2 * i];
      c->ranges[2 * k + 1] = len;
      k++;
      continue;
    }
    if (!out++) *lo = off, *hi = off + len;
    if (off < size) {
      c->ranges[2 * k] = c->ranges[2 * i];
      c->ranges[2 * k + 1] = size - off;
      k++;
    }
  }
  c->nranges = k;
  return out;
}

/* Repeated operations (docs/rma.md, "Repeated operations"): a thread that issues the same
 * call again (same window handle, op, target, displacement, counts, datatypes, buffers, code
 * address and caller chain) while the earlier ones are still in flight, with its clock
 * unchanged since, would send a record equal to one the target holds already and track a
 * buffer that is tracked already. From the third such call on (the first two went the whole
 * way, so a race between two of them has been found and reported) the call does nothing here.
 * `gen` changes at every completion (remote or local, any window, any thread, window freed):
 * an entry made before it is stale. Only predefined datatypes (their handles never change
 * meaning), no requests, no operations on oneself, no puts (each put is a write at the
 * target of its own, whose race with the put before it is counted there). */
enum { DUP_SETS = 128, DUP_WAYS = 4 };   /* a set per hash, four calls per set */
typedef struct dup {
  MPI_Win win;
  unsigned op, gen, state;     /* state: identical calls seen in a row (1, 2) */
  int target, tcount;
  MPI_Aint disp;
  MPI_Datatype tdt;
  uintptr_t pc;
  uint32_t stack;
  const void *ctx;
  uint64_t clock;              /* fingerprint of the issuing context's clock (clock_print) */
  int nbuf;
  hrace_rma_buf_t buf[3];
} dup_t;
static __thread dup_t *dups;           /* DUP_SETS * DUP_WAYS, made on first use */
static __thread unsigned dup_next;      /* round-robin victim within a set */
static _Atomic unsigned dup_gen = 1;
/* Between _begin and _end of this thread's call (wrappers do not nest): its slot, the
 * generation read before its checks, and whether the slot held another call. */
static __thread dup_t *pend_dup;
static __thread unsigned pend_gen;
static __thread int pend_fresh;

/* Clocks only grow, so the sum of a context's entries (both parts) changes whenever the clock
 * does: equal sums and sizes of one context are equal clocks. */
static uint64_t clock_print(const hrace_vc_t *v) {
  uint64_t s = (uint64_t)v->n << 40;
  for (uint32_t i = 0; i < v->n; i++) s += v->c[i];
  if (v->local) {
    s += (uint64_t)v->local->n << 52;
    for (uint32_t i = 0; i < v->local->n; i++) s += v->local->c[i];
  }
  return s;
}

static unsigned dup_slot(MPI_Win win, const hrace_rma_call_t *c, uintptr_t pc) {
  /* One mix of the fields that tell calls of one loop apart (a probe per call: ~15
   * instructions, against 56 for three chained combines). */
  uint64_t h = ((uint64_t)(uintptr_t)win ^ ((uint64_t)c->op << 56)) * 0x9E3779B97F4A7C15ull;
  h ^= ((uint64_t)c->disp ^ ((uint64_t)(uint32_t)c->target << 40)) * 0xC2B2AE3D27D4EB4Full;
  h ^= (uint64_t)pc ^ (uint64_t)(uintptr_t)c->buf[0].addr;
  h = hrace_hash_mix64(h);
  return (unsigned)(h ^ (h >> 32)) % DUP_SETS;
}

static int dup_same(const dup_t *d, MPI_Win win, const hrace_rma_call_t *c, uintptr_t pc) {
  if (d->win != win || d->op != c->op || d->target != c->target || d->disp != c->disp ||
      d->tcount != c->tcount || d->tdt != c->tdt || d->pc != pc || d->nbuf != c->nbuf)
    return 0;
  for (int b = 0; b < c->nbuf; b++)
    if (d->buf[b].addr != c->buf[b].addr || d->buf[b].count != c->buf[b].count ||
        d->buf[b].dt != c->buf[b].dt)
      return 0;
  return 1;
}

static int named(MPI_Datatype dt) {
  int ni, na, nd, comb;
  return PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
         comb == MPI_COMBINER_NAMED;
}

/* Called at every completion: entries made before it are stale. */
void hrace__rma_dup_reset(void) { atomic_fetch_add_explicit(&dup_gen, 1, memory_order_seq_cst); }

void hrace__rma_begin(MPI_Win win, hrace_rma_call_t *c, uintptr_t pc) {
  c->w = NULL;
  c->ranges = NULL;
  c->nranges = 0;
  c->pc = pc;
  pend_dup = NULL;
  if (!c->req && c->target != MPI_PROC_NULL && (c->atomic || !(c->tflags & HRACE_ACC_WRITE))) {
    if (!dups && !(dups = calloc(DUP_SETS * DUP_WAYS, sizeof *dups))) abort();
    dup_t *set = &dups[dup_slot(win, c, pc) * DUP_WAYS], *d = NULL;
    unsigned gen = atomic_load_explicit(&dup_gen, memory_order_seq_cst);
    for (unsigned k = 0; k < DUP_WAYS && !d; k++)
      if (set[k].gen == gen && dup_same(&set[k], win, c, pc)) d = &set[k];
    if (d) {
      const hrace_thread_t *t = hrace__thread();
      uint32_t stack = hrace__stack_capture_hook ? hrace__stack_capture_hook(pc) : 0;
      if (d->ctx == t->cur && d->stack == stack && d->clock == clock_print(&t->cur->g)) {
        if (d->state >= 2) return;       /* elided: c->w stays NULL */
        pend_dup = d;                    /* the second: the whole way, then state 2 */
        pend_gen = gen;
        pend_fresh = 0;
      }
    }
    if (!pend_dup) {
      if (!d) {                          /* a stale way, else the next in turn */
        for (unsigned k = 0; k < DUP_WAYS && !d; k++)
          if (set[k].gen != gen) d = &set[k];
        if (!d) d = &set[dup_next++ % DUP_WAYS];
      }
      pend_dup = d;
      pend_gen = gen;
      pend_fresh = 1;
    }
  }
  hrace_win_t *w = hrace__win_of(win);
  if (!w || c->target == MPI_PROC_NULL) return;
  const char *what = hrace__op_name(c->op);
  if (c->target < 0 || c->target >= w->gsize) {
    hrace__report_misuse(pc, "%s to rank %d, which is not in the group of window %s (size %d)",
                         what, c->target, w->name, w->gsize);
    return;
  }
  /* Arguments MPI may crash or hang on (mpi/argcheck.h): diagnosed, and the call is left to
   * MPI with no record (hrace must not flatten an uncommitted type). */
  static const char *const names[3][3] = { { "origin buffer" },
                                           { "result buffer", "origin buffer" },
                                           { "result buffer", "origin buffer", "compare buffer" } };
  for (int b = 0; b < c->nbuf && b < 3; b++)
    if (hrace__check_buffer(what, names[c->nbuf - 1][b], c->buf[b].addr, c->buf[b].count,
                            c->buf[b].dt, pc))
      return;
  if (hrace__check_type(what, "target", c->tdt, pc)) return;
  pthread_mutex_lock(&w->omu);
  int ok = hrace__rma_in_epoch(w, c->target);
  int started = w->started;
  pthread_mutex_unlock(&w->omu);
  if (!ok)
    hrace__report_misuse(pc, "%s to rank %d outside an access epoch on window %s (no fence, "
                         "lock, lock_all or %s opened one)", what, c->target, w->name,
                         started ? "MPI_Win_start naming that rank" : "MPI_Win_start");
  if (hrace__type_ranges(c->tdt, c->tcount, &c->ranges, &c->nranges) != MPI_SUCCESS) return;
  uint64_t lo = 0, hi = 0;
  if (w->kind != HRACE_WIN_DYNAMIC) {
    uint64_t du = (uint64_t)w->disp_units[c->target], size = w->sizes[c->target];
    if (clip(c, (uint64_t)c->disp * du, size, &lo, &hi))
      hrace__report_misuse(pc, "%s to rank %d accesses bytes [%llu,%llu) of window %s, which "
                           "has %llu bytes there", what, c->target, (unsigned long long)lo,
                           (unsigned long long)hi, w->name, (unsigned long long)size);
  }
  c->w = w;
}

/* After a call that went the whole way: fill its slot (the first of a run) or mark the run
 * as checked (the second), unless a completion came in between or the call may not repeat
 * silently. */
static void remember(const hrace_rma_call_t *c, int to, uint32_t stack) {
  dup_t *d = pend_dup;
  if (to == hrace__proc.rank) return;
  if (atomic_load_explicit(&dup_gen, memory_order_seq_cst) != pend_gen) return;
  const hrace_thread_t *t = hrace__thread();
  if (!pend_fresh) {   /* the datatypes are asked about only when a run begins */
    if (!named(c->tdt)) return;
    for (int b = 0; b < c->nbuf; b++)
      if (c->buf[b].count > 0 && !named(c->buf[b].dt)) return;
    d->state = 2;
    return;
  }
  *d = (dup_t){ .win = c->w->win, .op = c->op, .gen = pend_gen, .state = 1,
                .target = c->target, .tcount = c->tcount, .disp = c->disp, .tdt = c->tdt,
                .pc = c->pc, .stack = stack, .ctx = t->cur, .clock = clock_print(&t->cur->g),
                .nbuf = c->nbuf };
  for (int b = 0; b < c->nbuf; b++) d->buf[b] = c->buf[b];
}

void hrace__rma_end(hrace_rma_call_t *c, int rc) {
  hrace_win_t *w = c->w;
  if (w && rc == MPI_SUCCESS) {
    /* The call's site with its caller chain (the shadow stack of instrumented code), which
     * travels with the record so that the target's report shows as deep a stack for the
     * operation as for its own access. */
    uint32_t stack = hrace__stack_capture_hook ? hrace__stack_capture_hook(c->pc) : 0;
    const hrace_srcloc_t *site = hrace__site_here(stack, c->pc), loc = *site;
    uint32_t packed_len;
    const void *packed = hrace__site_pack(site, &packed_len);
    uint16_t flags = c->tflags | HRACE_ACC_REMOTE;
    uint32_t cls = 0;
    if (c->atomic) {
      /* The phase of the first target byte (a window offset, or an address in a dynamic
       * window); a derived target type mixing phases is classed by its first element. */
      uint64_t at = (uint64_t)c->disp * (w->kind == HRACE_WIN_DYNAMIC ? 1 : (uint64_t)w->disp_units[c->target]);
      flags |= HRACE_ACC_ATOMIC;
      cls = hrace__rma_atomic_class_at(c->tdt, at + (c->nranges ? c->ranges[0] : 0));
    }
    hrace_msg_t h = {
      .type = HRACE_MSG_OP, .win = w->id, .origin = hrace__proc.rank,
      .thread = hrace__thread()->tid, .exporter = hrace__thread_exporter(),
      .op = (uint16_t)c->op, .flags = flags,
      .atomic_class = cls, .nranges = c->nranges, .line = loc.line, .disp = (uint64_t)c->disp,
      .blob_len = packed_len,
      .epoch = hrace__rma_epoch_kind(w, c->target),
    };
    int to = hrace__win_world(w, c->target);
    pthread_mutex_lock(&w->omu);
    /* The record carries the issue clock: a target access ordered before it is not a race.
     * In a PSCW or NOPRECEDE-fence epoch the target access also follows the target's post or
     * fence, which the issuing process itself is not ordered after (window.h). */
    const hrace_vc_t *view = hrace__thread_view();
    hrace_vc_t joined = { 0 };
    int by_start = w->started && w->start_group[c->target];
    if (by_start || w->fence_view) {
      hrace__vc_init(&joined, view->n);
      hrace__vc_copy(&joined, view);
      if (by_start) hrace__vc_join(&joined, &w->post_vcs[c->target]);   /* stable in the epoch */
      if (w->fence_view) hrace__vc_join(&joined, &w->fence_vc);
      view = &joined;
    }
    if (c->nranges && to != hrace__proc.rank) {
      /* The packed frames hold the call's own location too: the strings need not travel. */
      hrace__ctl_send_blob(to, &h, c->ranges, view, packed_len ? NULL : loc.func,
                           packed_len ? NULL : loc.file, packed);
    } else if (c->nranges) {
      /* At ourselves the record is applied here and now, seen with this thread's own clock
       * (local part included): a message's clock could not tell this thread's accesses just
       * before the issue from those just after it, none of which it has published. */
      hrace__win_lock();
      hrace__rma_apply(w, &h, c->ranges, by_start || w->fence_view ? view : hrace__thread_view(),
                       site);
      hrace__win_unlock();
    }
    w->dirty[c->target] = 1;
    pthread_mutex_unlock(&w->omu);
    hrace__vc_free(&joined);
    hrace__buffers_issue(c, site);
    if (pend_dup) remember(c, to, stack);
  }
  pend_dup = NULL;
  free(c->ranges);
  c->ranges = NULL;
}

void hrace__rma_complete(hrace_win_t *w, int target) {
  hrace__rma_complete_remote(w, target);
  hrace__buffers_complete(w, target);
}

/* The delivery invariant (protocol.h) asks that a target has applied the completion before
 * anything ordered after it reaches the target. Only this thread is ordered after it at once,
 * and only its own accesses could reach a target without a clock leaving the process: the
 * process itself. Every other chain starts with a publication of this process's clock, which
 * pings the target first (hrace__shared_late_complete, core/hooks.h). So a completion at
 * another process goes out unacknowledged: a flush per operation (a hash table's
 * compare-and-swap) no longer waits for a round trip through the target's progress thread,
 * and the acknowledgements of a run of flushes are one ping at the next publication. It goes
 * out at once, with the records before it, not in the lazy buffer: held back until 32 KiB
 * waited, the hash table ran 4-10x slower than with a write per flush (hist dht 2000 2 under
 * load, medians 2.0 s against 0.22 s; the targets' progress threads then took the records
 * and completions in large late batches). */
void hrace__rma_complete_remote(hrace_win_t *w, int target) {
  hrace__rma_dup_reset();
  int lo = target < 0 ? 0 : target, hi = target < 0 ? w->gsize : target + 1;
  pthread_mutex_lock(&w->omu);
  hrace_msg_t h = hrace__rma_msg(w, HRACE_MSG_COMPLETE);
  for (int t = lo; t < hi; t++) {
    if (!w->dirty[t]) continue;
    int world = hrace__win_world(w, t);
    if (world == hrace__proc.rank) {
      /* Operations on oneself were applied by their issuing threads (hrace__rma_end), never
       * sent: so is their completion, at once and without a round trip. */
      hrace__win_lock();
      hrace__rma_complete_ops(w, &h);
      hrace__win_broadcast();
      hrace__win_unlock();
    } else {
      h.reply_tag = HRACE_NO_REPLY;
      hrace__ctl_send(world, &h, NULL, NULL, NULL, NULL);
      hrace__shared_late_complete(world);
    }
    w->dirty[t] = 0;
  }
  pthread_mutex_unlock(&w->omu);
}

void hrace__rma_complete_local(hrace_win_t *w, int target) { hrace__buffers_complete(w, target); }

/* ---- the wrappers ---------------------------------------------------------------------- */

#define BUF(a, c, d, wr) ((hrace_rma_buf_t){ (a), (c), (d), (wr) })

/* Run the real call between _begin and _end (active, ret: the generated wrapper's, wrappers.def
 * class "rma"). */
#define CALL(win, call, pmpi)                                         \
  int on_ = active;                                                   \
  if (on_) hrace__rma_begin(win, &call, hrace__caller(ret));          \
  int rc = pmpi;                                                      \
  if (on_) hrace__rma_end(&call, rc);                                 \
  return rc

/* Target access of an accumulate-family operation with op `mop`. */
static uint16_t acc_flags(MPI_Op mop) {
  if (mop == MPI_NO_OP) return HRACE_ACC_READ;
  if (mop == MPI_REPLACE) return HRACE_ACC_WRITE;
  return HRACE_ACC_READ | HRACE_ACC_WRITE;
}

int hrace__h_put(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                 int tcount, MPI_Datatype tdt, MPI_Win win, int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_PUT, .tflags = HRACE_ACC_WRITE, .target = target,
                         .disp = disp, .tcount = tcount, .tdt = tdt, .nbuf = 1,
                         .buf = { BUF(oaddr, ocount, odt, 0) } };
  CALL(win, c, PMPI_Put(oaddr, ocount, odt, target, disp, tcount, tdt, win));
}

int hrace__h_get(void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
                 MPI_Datatype tdt, MPI_Win win, int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_GET, .tflags = HRACE_ACC_READ, .target = target,
                         .disp = disp, .tcount = tcount, .tdt = tdt, .nbuf = 1,
                         .buf = { BUF(oaddr, ocount, odt, 1) } };
  CALL(win, c, PMPI_Get(oaddr, ocount, odt, target, disp, tcount, tdt, win));
}

int hrace__h_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                        int tcount, MPI_Datatype tdt, MPI_Op mop, MPI_Win win, int active,
                        uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_ACC, .tflags = acc_flags(mop), .atomic = 1,
                         .target = target, .disp = disp, .tcount = tcount, .tdt = tdt,
                         .nbuf = 1, .buf = { BUF(oaddr, ocount, odt, 0) } };
  CALL(win, c, PMPI_Accumulate(oaddr, ocount, odt, target, disp, tcount, tdt, mop, win));
}

int hrace__h_get_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr,
                            int rcount, MPI_Datatype rdt, int target, MPI_Aint disp, int tcount,
                            MPI_Datatype tdt, MPI_Op mop, MPI_Win win, int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_GET_ACC, .tflags = acc_flags(mop), .atomic = 1,
                         .target = target, .disp = disp, .tcount = tcount, .tdt = tdt,
                         .nbuf = 2, .buf = { BUF(raddr, rcount, rdt, 1),
                                             BUF(oaddr, mop == MPI_NO_OP ? 0 : ocount, odt, 0) } };
  CALL(win, c, PMPI_Get_accumulate(oaddr, ocount, odt, raddr, rcount, rdt, target, disp, tcount,
                                   tdt, mop, win));
}

int hrace__h_fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype dt, int target,
                          MPI_Aint disp, MPI_Op mop, MPI_Win win, int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_FOP, .tflags = acc_flags(mop), .atomic = 1,
                         .target = target, .disp = disp, .tcount = 1, .tdt = dt, .nbuf = 2,
                         .buf = { BUF(raddr, 1, dt, 1), BUF(oaddr, mop == MPI_NO_OP ? 0 : 1, dt, 0) } };
  CALL(win, c, PMPI_Fetch_and_op(oaddr, raddr, dt, target, disp, mop, win));
}

int hrace__h_compare_and_swap(const void *oaddr, const void *caddr, void *raddr, MPI_Datatype dt,
                              int target, MPI_Aint disp, MPI_Win win, int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_CAS, .tflags = HRACE_ACC_READ | HRACE_ACC_WRITE,
                         .atomic = 1, .target = target, .disp = disp, .tcount = 1, .tdt = dt,
                         .nbuf = 3, .buf = { BUF(raddr, 1, dt, 1), BUF(oaddr, 1, dt, 0),
                                             BUF(caddr, 1, dt, 0) } };
  CALL(win, c, PMPI_Compare_and_swap(oaddr, caddr, raddr, dt, target, disp, win));
}

int hrace__h_rput(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                  int tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req, int active,
                  uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_RPUT, .tflags = HRACE_ACC_WRITE, .target = target,
                         .disp = disp, .tcount = tcount, .tdt = tdt, .nbuf = 1, .req = req,
                         .buf = { BUF(oaddr, ocount, odt, 0) } };
  CALL(win, c, PMPI_Rput(oaddr, ocount, odt, target, disp, tcount, tdt, win, req));
}

int hrace__h_rget(void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
                  MPI_Datatype tdt, MPI_Win win, MPI_Request *req, int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_RGET, .tflags = HRACE_ACC_READ, .target = target,
                         .disp = disp, .tcount = tcount, .tdt = tdt, .nbuf = 1, .req = req,
                         .buf = { BUF(oaddr, ocount, odt, 1) } };
  CALL(win, c, PMPI_Rget(oaddr, ocount, odt, target, disp, tcount, tdt, win, req));
}

int hrace__h_raccumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                         int tcount, MPI_Datatype tdt, MPI_Op mop, MPI_Win win, MPI_Request *req,
                         int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_RACC, .tflags = acc_flags(mop), .atomic = 1,
                         .target = target, .disp = disp, .tcount = tcount, .tdt = tdt,
                         .nbuf = 1, .req = req, .buf = { BUF(oaddr, ocount, odt, 0) } };
  CALL(win, c, PMPI_Raccumulate(oaddr, ocount, odt, target, disp, tcount, tdt, mop, win, req));
}

int hrace__h_rget_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, void *raddr,
                             int rcount, MPI_Datatype rdt, int target, MPI_Aint disp, int tcount,
                             MPI_Datatype tdt, MPI_Op mop, MPI_Win win, MPI_Request *req,
                             int active, uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_RGET_ACC, .tflags = acc_flags(mop), .atomic = 1,
                         .target = target, .disp = disp, .tcount = tcount, .tdt = tdt,
                         .nbuf = 2, .req = req,
                         .buf = { BUF(raddr, rcount, rdt, 1),
                                  BUF(oaddr, mop == MPI_NO_OP ? 0 : ocount, odt, 0) } };
  CALL(win, c, PMPI_Rget_accumulate(oaddr, ocount, odt, raddr, rcount, rdt, target, disp,
                                    tcount, tdt, mop, win, req));
}
