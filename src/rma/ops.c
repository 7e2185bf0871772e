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
#include "access/stack.h"
#include "access/thread.h"
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
                        .exporter = hrace__thread_exporter(), .complete = hrace__thread_epoch(),
                        .fgen = hrace__win_fgen(w) };
}

/* The hash of dt's element type's name, and its size. Predefined types (their handles name
 * them for the whole run) are kept per thread: the name query and its hash were a quarter of
 * an accumulate's own cost (hist acc, callgrind: ~270 instructions of ~1100). */
enum { ELEM_CACHE = 4 };
static __thread struct { MPI_Datatype dt; uint64_t h; int size; } elems[ELEM_CACHE]
    __attribute__((tls_model("initial-exec")));
static __thread unsigned elem_next __attribute__((tls_model("initial-exec")));

static uint64_t element_hash(MPI_Datatype dt, int *size) {
  for (unsigned i = 0; i < ELEM_CACHE; i++)
    if (elems[i].dt == dt && elems[i].h) {
      *size = elems[i].size;
      return elems[i].h;
    }
  char name[MPI_MAX_OBJECT_NAME + 1];
  if (hrace__type_element(dt, name, size)) name[0] = 0;
  uint64_t h = hrace_hash_str(name, HRACE_HASH_SEED);
  int ni, na, nd, comb;
  if (dt != MPI_DATATYPE_NULL && h &&
      PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED) {
    unsigned k = elem_next++ % ELEM_CACHE;
    elems[k].dt = dt, elems[k].h = h, elems[k].size = *size;
  }
  return h;
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
  int size = 0;
  uint64_t h64 = element_hash(dt, &size);
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
 * way, so a race between two of them has been found and reported; from the second on for a
 * call that writes no origin-side buffer, two of which never race) the call does nothing here.
 * `gen` changes at every completion (remote or local, any window, any thread, window freed):
 * what was recorded before it is stale. Only predefined datatypes (their handles never change
 * meaning), no requests, no puts (each put is a write at the target of its own, whose race
 * with the put before it is counted there). Operations on oneself may repeat too: their
 * record is applied at the issue with the thread's own clock, local part included, which is
 * part of the key (clock_print), and a repeat would apply it again with that same clock.
 *
 * The calls are kept by *run*: every argument but the displacement (and the code address,
 * caller chain, context and clock), each run with the displacements it has seen and how often
 * (1: the first went the whole way; 2: the second too, or the first of a call that writes no
 * origin-side buffer: later ones are repeats). A loop over
 * many offsets (a histogram's 4096 bins, 64 offsets of a get loop) is one run whose table holds
 * each distinct displacement once: memory is bounded by the distinct target ranges of an
 * epoch, and a call finds its run with one compare against the last run this thread used. */
enum { RUNS = 8,                 /* runs per thread */
       RUN_MAX = 1 << 14 };      /* displacements per run (beyond: the whole way, uncounted) */
typedef struct run {
  MPI_Win win;
  unsigned op, gen;            /* gen: the generation of the displacements below */
  uint16_t tflags;             /* the target access (an accumulate's op: acc_flags) */
  int target, tcount;
  MPI_Datatype tdt;
  uintptr_t pc;
  uint32_t stack;
  const void *ctx;
  uint64_t clock;              /* version of the issuing context's clock (clock_print) */
  int nbuf;
  int named;                   /* every datatype predefined: repeats may be skipped */
  hrace_rma_buf_t buf[3];
  uint32_t n, cap;             /* displacements seen; table size (a power of two, or 0) */
  MPI_Aint *disp;              /* open addressing by displacement ... */
  uint8_t *state;              /* ... and how often seen (0: empty slot) */
} run_t;
/* Per thread, in one block of initial-exec TLS (libhrace is preloaded: a TLS access is one
 * load off %fs, not a call to __tls_get_addr). Between _begin and _end of this thread's call
 * (wrappers do not nest): `on` (the call may repeat), its run (NULL: a new run begins at
 * _end), the slot of its displacement there, the generation read before its checks, whether
 * its displacement was seen once (the second call), its caller chain and clock version. */
/* The last repeat the probe found, with everything its key was made of as the calls' own
 * words: the arguments, the shadow stack's depth and version (access/thread.h: equal ones are
 * the same activation of the innermost instrumented function, so the same frames, what the
 * caller-chain id is interned from) and the clock's version. A call equal to it in all of
 * these, at a displacement its run counts twice, is a repeat without the call block, the run
 * search or the chain id (hot_repeat). Calls with one origin-side buffer only (gets,
 * accumulates). The code address is the wrapper's own return address (`ret`), kept only when
 * it is the application's line itself (hrace__caller(ret) == ret, outside the MPI library), so
 * the generated wrapper compares it as it finds it; 0: none (cleared when the run is given to
 * another key). The displacements are the run's counted twice that the probe met since the
 * run became hot, one per slot (d mod HOT_DISP: a loop over consecutive displacements keeps
 * up to 64 of them), each slot holding one displacement of its own residue or a value of
 * another (empty): membership is one compare, where the run's table took a hash, a probe loop
 * and the registers the wrapper then saved (bench/README.md, "Session 15"). */
enum { HOT_DISP = 64 };   /* one bit per slot in hot_t.clean */
#define HOT_KIND(op, tflags) ((unsigned)(op) << 16 | (tflags))   /* one compare for both */
typedef struct hot {
  uintptr_t ret;
  MPI_Win win;
  unsigned kind, gen, depth, sslot;   /* kind: HOT_KIND; sslot: the version's stamps[] slot */
  int target, tcount, count;
  MPI_Datatype tdt, dt;
  const void *addr, *ctx;
  uint64_t clock, stack;
  run_t *run;
  uint64_t clean;              /* the slots known empty (bit i: slot i; none in a new thread,
                                  whose zeroed slot 0 would hold displacement 0) */
  MPI_Aint disp[HOT_DISP];
} hot_t;
typedef struct runs {
  hot_t hot;
  run_t run[RUNS];
  unsigned last, next;         /* the run used last; round-robin victim */
  int on, second;
  run_t *run_of;
  uintptr_t ret;               /* the wrapper's return address (hot_keep) */
  uint32_t slot, stack;
  unsigned gen;
  uint64_t clock;
} runs_t;
static __thread runs_t rs __attribute__((tls_model("initial-exec")));
/* The hot path's helpers are inlined into it (a call and return were a fifth of its cost). */
#define HRACE_INLINE_ALWAYS inline __attribute__((always_inline))
static _Atomic unsigned dup_gen = 1;

/* The issuing context's clock in a key: its version (core/thread.h), a stamp that every change
 * of either clock part renews, unique in the process. Equal versions are equal clocks; one
 * compare, where the sum of the entries of both parts it replaces cost O(P) (~40 instructions
 * per get at 2 ranks). */
HRACE_INLINE_ALWAYS static uint64_t clock_print(const hrace_ctx_t *c) { return c->ver; }

/* Every argument but the displacement. */
static int run_same(const run_t *r, MPI_Win win, const hrace_rma_call_t *c, uintptr_t pc) {
  if (r->win != win || r->op != c->op || r->tflags != c->tflags || r->target != c->target ||
      r->tcount != c->tcount || r->tdt != c->tdt || r->pc != pc || r->nbuf != c->nbuf)
    return 0;
  for (int b = 0; b < c->nbuf; b++)
    if (r->buf[b].addr != c->buf[b].addr || r->buf[b].count != c->buf[b].count ||
        r->buf[b].dt != c->buf[b].dt)
      return 0;
  return 1;
}

HRACE_INLINE_ALWAYS static uint32_t disp_hash(MPI_Aint d) {
  uint64_t h = (uint64_t)d * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(h >> 32);
}

/* The slot of displacement d in r's table: its own, or the empty one where it would go. */
HRACE_INLINE_ALWAYS static uint32_t disp_slot(const run_t *r, MPI_Aint d) {
  uint32_t m = r->cap - 1, i = disp_hash(d) & m;
  while (r->state[i] && r->disp[i] != d) i = (i + 1) & m;
  return i;
}

static void run_clear(run_t *r) {
  if (r->cap > 256) {          /* a large table is not kept for a run that starts over */
    free(r->disp);
    free(r->state);
    r->disp = NULL;
    r->state = NULL;
    r->cap = 0;
  } else if (r->cap) {
    memset(r->state, 0, r->cap);
  }
  r->n = 0;
}

/* Room for one more displacement (load at most 1/2); 0 if the run is full. */
static int run_room(run_t *r) {
  if (2 * (r->n + 1) <= r->cap) return 1;
  if (r->n >= RUN_MAX) return 0;
  uint32_t cap = r->cap ? 2 * r->cap : 64, oc = r->cap;
  MPI_Aint *od = r->disp;
  uint8_t *os = r->state;
  if (!(r->disp = malloc(cap * sizeof *r->disp)) || !(r->state = calloc(cap, 1))) abort();
  r->cap = cap;
  for (uint32_t i = 0; i < oc; i++)
    if (os[i]) {
      uint32_t j = disp_slot(r, od[i]);
      r->disp[j] = od[i];
      r->state[j] = os[i];
    }
  free(od);
  free(os);
  return 1;
}

/* Is dt predefined? The last few predefined handles are kept per thread (they name their
 * type for the whole run): a run begins at every call after a completion (a hash table's
 * compare-and-swap and flush), which asked MPI four times per call. */
enum { NAMED_KEPT = 4 };
static __thread MPI_Datatype named_kept[NAMED_KEPT] __attribute__((tls_model("initial-exec")));
static __thread unsigned named_next __attribute__((tls_model("initial-exec")));

static int named(MPI_Datatype dt) {
  int ni, na, nd, comb;
  if (dt == MPI_DATATYPE_NULL) return 0;
  for (unsigned i = 0; i < NAMED_KEPT && i < named_next; i++)
    if (named_kept[i] == dt) return 1;
  if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
      comb != MPI_COMBINER_NAMED)
    return 0;
  named_kept[named_next % NAMED_KEPT] = dt;
  if (++named_next >= 2 * NAMED_KEPT) named_next = NAMED_KEPT;   /* no overflow */
  return 1;
}

/* Called at every completion: what the runs recorded before it is stale. */
void hrace__rma_dup_reset(void) { atomic_fetch_add_explicit(&dup_gen, 1, memory_order_seq_cst); }

/* Remember repeat r of call c as the hot one (the probe found it), if the wrapper's return
 * address is the application's line itself: a return address in the MPI library (a Fortran
 * binding that calls the C symbol) is the same for every line that calls through it, and only
 * hrace__caller's walk tells them apart (core/mpicode.h). The displacements kept are r's, so
 * they are dropped when another run becomes hot; those of r stay counted twice while r keeps
 * its key (a run given another key drops the hot one first: remember). */
static void hot_keep(run_t *r, MPI_Win win, const hrace_rma_call_t *c, uintptr_t pc,
                     const hrace_thread_t *t) {
  if (rs.ret != pc ||
      (pc - hrace__exe_lo >= hrace__exe_hi - hrace__exe_lo && hrace__pc_in_mpi(pc)))
    return;
  const hrace_athread_t *a = &hrace__at;
  hot_t *h = &rs.hot;
  if (h->run != r) {
    /* Only the slots in use are emptied: two lines that take turns (a halo's two gets) make
     * another run hot at every call, each with a displacement or two. */
    for (uint64_t u = ~h->clean; u; u &= u - 1) {
      const unsigned i = (unsigned)__builtin_ctzll(u);
      h->disp[i] = (MPI_Aint)(i + 1);                       /* empty: another residue */
    }
    h->clean = ~0ull;
    h->run = r;
  }
  h->disp[(uintptr_t)c->disp % HOT_DISP] = c->disp;
  h->clean &= ~(1ull << ((uintptr_t)c->disp % HOT_DISP));
  h->win = win, h->kind = HOT_KIND(c->op, c->tflags), h->gen = r->gen, h->depth = a->depth;
  h->sslot = (a->depth - 1) % HRACE_SSTACK;
  h->target = c->target, h->tcount = c->tcount, h->tdt = c->tdt, h->addr = c->buf[0].addr;
  h->count = c->buf[0].count, h->dt = c->buf[0].dt, h->ctx = t->cur, h->clock = r->clock;
  h->stack = a->stamps[h->sslot];   /* hrace__athread_stack_ver; at depth 0: see hot_repeat */
  h->ret = pc;
}

/* Is this call (one origin-side buffer) from return address ret a repeat of the hot one's
 * run: the same arguments but maybe the displacement, generation, context, shadow stack and
 * clock, at a displacement kept in the hot block? Asked by the generated wrapper before
 * anything else (hrace__hot_get): a few dozen instructions, all of them loads and compares
 * (no call, so the wrapper keeps its arguments where they came); no is the probe's business.
 * The thread's state exists (hrace__self, no hrace__thread()): a hot repeat is kept only by a
 * call of this thread that went the whole way, after its wrapper made it (ret is 0 before). */
HRACE_INLINE_ALWAYS static int hot_repeat(MPI_Win win, unsigned op, uint16_t tflags, int target,
                                          MPI_Aint disp, int tcount, MPI_Datatype tdt,
                                          const void *addr, int count, MPI_Datatype dt,
                                          uintptr_t ret) {
  const hot_t *h = &rs.hot;
  if (h->ret != ret || h->disp[(uintptr_t)disp % HOT_DISP] != disp || h->win != win ||
      h->addr != addr || h->target != target || h->kind != HOT_KIND(op, tflags) ||
      h->tcount != tcount || h->tdt != tdt || h->count != count || h->dt != dt ||
      h->gen != atomic_load_explicit(&dup_gen, memory_order_seq_cst))
    return 0;
  const hrace_ctx_t *cur = hrace__self.cur;
  if (h->ctx != cur || h->clock != clock_print(cur)) return 0;
  /* The shadow stack's version at the kept depth: hrace__athread_stack_ver with its slot
   * computed once. At depth 0 (no live instrumented frame) the version is 0 and the slot's
   * stamp is compared as well: stricter, never looser (a changed slot makes a miss). */
  const hrace_athread_t *a = &hrace__at;
  return h->depth == a->depth && h->stack == a->stamps[h->sslot];
}

/* The repeat probe of a cacheable call. Returns 1 if the call is a repeat (nothing to do);
 * else fills `rs` for remember(). */
static int probe(MPI_Win win, const hrace_rma_call_t *c, uintptr_t pc) {
  unsigned gen = atomic_load_explicit(&dup_gen, memory_order_seq_cst);
  const hrace_thread_t *t = hrace__thread();
  int keyed = 0;               /* rs.stack and rs.clock computed (only once a run matches) */
  rs.on = 1;
  rs.gen = gen;
  rs.run_of = NULL;
  rs.second = 0;
  rs.clock = 0;
  for (unsigned k = 0; k < RUNS; k++) {
    run_t *r = &rs.run[(rs.last + k) % RUNS];
    if (r->gen != gen || !r->n || r->ctx != t->cur || !run_same(r, win, c, pc)) continue;
    if (!keyed++) {
      rs.stack = hrace__stack_capture_at(pc);   /* direct: inlined, no hook */
      rs.clock = clock_print(t->cur);
    }
    if (r->stack != rs.stack || r->clock != rs.clock) continue;
    rs.last = (unsigned)(r - rs.run);
    rs.run_of = r;
    if (!r->named) return 0;                     /* a run that never skips */
    rs.slot = disp_slot(r, c->disp);
    if (r->state[rs.slot] >= 2) {                /* a repeat: c->w stays NULL */
      if (c->nbuf == 1) hot_keep(r, win, c, pc, t);
      return 1;
    }
    rs.second = r->state[rs.slot] == 1;          /* the second: the whole way, then 2 */
    return 0;
  }
  if (!keyed) {
    rs.stack = hrace__stack_capture_at(pc);
    rs.clock = clock_print(t->cur);
  }
  return 0;
}

void hrace__rma_begin(MPI_Win win, hrace_rma_call_t *c, uintptr_t pc) {
  c->w = NULL;
  c->ranges = NULL;
  c->nranges = 0;
  c->pc = pc;
  rs.on = 0;
  if (!c->req && c->target != MPI_PROC_NULL && (c->atomic || !(c->tflags & HRACE_ACC_WRITE)) &&
      probe(win, c, pc))
    return;
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
  if (hrace__type_ranges_in(c->tdt, c->tcount, c->one, &c->ranges, &c->nranges) != MPI_SUCCESS)
    return;
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

/* After a call that went the whole way: count its displacement in its run (a new run if it
 * had none), unless a completion came in between or the call may not repeat silently. */
static void remember(const hrace_rma_call_t *c) {
  if (atomic_load_explicit(&dup_gen, memory_order_seq_cst) != rs.gen) return;
  run_t *r = rs.run_of;
  if (r) {
    if (!r->named) return;
    if (rs.second) {
      r->state[rs.slot] = 2;
      return;
    }
  } else {
    /* A new run: a stale one's place, else the next in turn. The datatypes are asked about
     * only when a run begins. */
    const hrace_thread_t *t = hrace__thread();
    for (unsigned k = 0; k < RUNS && !r; k++)
      if (rs.run[k].gen != rs.gen || !rs.run[k].n) r = &rs.run[k];
    if (!r) r = &rs.run[rs.next++ % RUNS];
    if (rs.hot.run == r) rs.hot.ret = 0, rs.hot.run = NULL;   /* r now holds another key */
    run_clear(r);
    r->win = c->w->win, r->op = c->op, r->tflags = c->tflags, r->gen = rs.gen;
    r->target = c->target;
    r->tcount = c->tcount, r->tdt = c->tdt, r->pc = c->pc, r->stack = rs.stack;
    r->ctx = t->cur, r->clock = rs.clock, r->nbuf = c->nbuf;
    r->named = named(c->tdt);
    for (int b = 0; b < c->nbuf; b++) {
      r->buf[b] = c->buf[b];
      if (c->buf[b].count > 0 && !named(c->buf[b].dt)) r->named = 0;
    }
    rs.last = (unsigned)(r - rs.run);
    if (!r->named) {
      r->n = 1;                /* found by later calls, which then skip nothing */
      return;
    }
  }
  if (!run_room(r)) return;
  /* A second identical call is checked only if it writes an origin-side buffer (a get's, a
   * result buffer): two such calls race there, and the second finds it. One that only reads
   * its buffers (an accumulate) meets the first nowhere: nothing is left to check. */
  int writes = 0;
  for (int b = 0; b < c->nbuf; b++) writes |= c->buf[b].writes && c->buf[b].count > 0;
  rs.slot = disp_slot(r, c->disp);
  r->disp[rs.slot] = c->disp;
  r->state[rs.slot] = writes ? 1 : 2;
  r->n++;
}

void hrace__rma_end(hrace_rma_call_t *c, int rc) {
  hrace_win_t *w = c->w;
  if (w && rc == MPI_SUCCESS) {
    /* The call's site with its caller chain (the shadow stack of instrumented code), which
     * travels with the record so that the target's report shows as deep a stack for the
     * operation as for its own access. */
    uint32_t stack = rs.on ? rs.stack : hrace__stack_capture_at(c->pc);   /* probe's, if any */
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
      .epoch = hrace__rma_epoch_kind(w, c->target), .fgen = hrace__win_fgen(w),
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
    if (rs.on) remember(c);
  }
  rs.on = 0;
  if (c->ranges != c->one) free(c->ranges);
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
 * and completions in large late batches). Seven writes in eight are quiet (protocol.h,
 * hrace__ctl_send_served): they wake nobody, and the target's own next flush applies them
 * (epoch.c), or its progress thread when the ping comes; ringing for each flush cost the
 * hash table a wake-up of the target's progress thread every other flush (bench/README.md,
 * "Session 17: the hash table's flush per operation"). */
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
      hrace__ctl_send_served(world, &h);
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
 * class "rma"). _end only for a call _begin found work for (call.w): any other holds nothing
 * to release, and a repeat (ops.c, "Repeated operations") then costs no second call. */
#define CALL(win, call, pmpi)                                         \
  int on_ = active;                                                   \
  rs.ret = ret;                                                       \
  if (on_) hrace__rma_begin(win, &call, hrace__caller(ret));          \
  int rc = pmpi;                                                      \
  if (on_ && call.w) hrace__rma_end(&call, rc);                       \
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

int hrace__hot_get(void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                   int tcount, MPI_Datatype tdt, MPI_Win win, uintptr_t ret) {
  return hot_repeat(win, HRACE_OP_GET, HRACE_ACC_READ, target, disp, tcount, tdt, oaddr, ocount,
                    odt, ret);
}

int hrace__h_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                        int tcount, MPI_Datatype tdt, MPI_Op mop, MPI_Win win, int active,
                        uintptr_t ret) {
  hrace_rma_call_t c = { .op = HRACE_OP_ACC, .tflags = acc_flags(mop), .atomic = 1,
                         .target = target, .disp = disp, .tcount = tcount, .tdt = tdt,
                         .nbuf = 1, .buf = { BUF(oaddr, ocount, odt, 0) } };
  CALL(win, c, PMPI_Accumulate(oaddr, ocount, odt, target, disp, tcount, tdt, mop, win));
}

int hrace__hot_accumulate(const void *oaddr, int ocount, MPI_Datatype odt, int target,
                          MPI_Aint disp, int tcount, MPI_Datatype tdt, MPI_Op mop, MPI_Win win,
                          uintptr_t ret) {
  return hot_repeat(win, HRACE_OP_ACC, acc_flags(mop), target, disp, tcount, tdt, oaddr, ocount,
                    odt, ret);
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
