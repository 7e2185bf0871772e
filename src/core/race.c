/* Race reports from shadow conflicts (see race.h): kind, sides with short stacks, memory,
 * synchronisation regions and the hint. Runs only when a race is found; a repeat of a known
 * race (the steady state of a racy loop) is counted after symbolizing the two code addresses
 * (cached) and nothing more. */
#include "core/race.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/options.h"
#include "base/map.h"
#include "core/hooks.h"
#include "core/proc.h"
#include "core/stack.h"
#include "core/thread.h"


/* ---- interned remote sites (with the origin's frames, when it sent them) ---- */
typedef struct site {
  hrace_srcloc_t loc;          /* first: descriptors point here */
  unsigned nframes;
  hrace_frame_t frames[HRACE_REPORT_FRAMES];
  _Atomic(void *) packed;      /* hrace__site_pack's bytes, made on first use (under sites_mu),
                                  then read without the lock */
  uint32_t packed_len;
} site_t;
static hrace_map_t sites = HRACE_MAP_INIT;   /* hash of the frames -> site_t, under sites_mu */
static pthread_mutex_t sites_mu = PTHREAD_MUTEX_INITIALIZER;

static char *xstrdup(const char *s) {
  char *d = strdup(s ? s : "??");
  if (!d) abort();
  return d;
}

static bool frames_eq(const site_t *s, const hrace_frame_t *f, unsigned n) {
  if (s->nframes != n) return false;
  for (unsigned i = 0; i < n; i++)
    if (s->frames[i].inlined != f[i].inlined || s->frames[i].loc.line != f[i].loc.line ||
        s->frames[i].loc.column != f[i].loc.column || strcmp(s->frames[i].loc.func, f[i].loc.func) || strcmp(s->frames[i].loc.file, f[i].loc.file))
      return false;
  return true;
}

typedef struct frames { const hrace_frame_t *f; unsigned n; } frames_t;

/* hrace_map_find's eq: does site val hold exactly the frames of arg (a frames_t)? The first
 * is its location: with n == 0 a "??" frame stands in (hrace__site_intern_frames). */
static bool site_is(const void *val, const void *arg) {
  const site_t *s = val;
  const frames_t *k = arg;
  const hrace_srcloc_t *loc = &k->f[0].loc;
  return s->loc.line == loc->line && s->loc.column == loc->column && !strcmp(s->loc.file, loc->file) &&
         !strcmp(s->loc.func, loc->func) && frames_eq(s, k->f, k->n);
}

const hrace_srcloc_t *hrace__site_intern_frames(const hrace_frame_t *f, unsigned n) {
  if (n > HRACE_REPORT_FRAMES) n = HRACE_REPORT_FRAMES;
  hrace_frame_t top = { .loc = { "??", "??", 0 } };
  if (n == 0) f = &top;
  const hrace_srcloc_t *loc = &f[0].loc;
  uint64_t h = hrace_hash_str(loc->func, hrace_hash_str(loc->file, HRACE_HASH_SEED));
  h = hrace_hash_combine(h, (uint64_t)loc->line << 8 | n);
  frames_t key = { f, n };
  pthread_mutex_lock(&sites_mu);
  site_t *s = hrace_map_find(&sites, h, site_is, &key);
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s) abort();
    s->loc = (hrace_srcloc_t){ xstrdup(loc->func), xstrdup(loc->file), loc->line, loc->column };
    s->nframes = n;
    for (unsigned i = 0; i < n; i++)
      s->frames[i] = (hrace_frame_t){ .loc = { xstrdup(f[i].loc.func), xstrdup(f[i].loc.file),
                                               f[i].loc.line, f[i].loc.column },
                                      .inlined = f[i].inlined };
    hrace_map_add(&sites, h, s);
  }
  pthread_mutex_unlock(&sites_mu);
  return &s->loc;
}

const hrace_srcloc_t *hrace__site_intern(const char *func, const char *file, int line) {
  hrace_frame_t f = { .loc = { func ? func : "??", file ? file : "??", line } };
  return hrace__site_intern_frames(&f, 1);
}

/* ---- sites of this process's own calls (RMA operations), by stack ---- */
static hrace_map_t here = HRACE_MAP_INIT;   /* stack id (or pc) -> site_t, under sites_mu */

const hrace_srcloc_t *hrace__site_here(uint32_t stack, uintptr_t pc) {
  /* A loop of operations issues from one stack: the thread's last one is kept (sites live as
   * long as the process). */
  static __thread uint64_t last_key;
  static __thread const hrace_srcloc_t *last_site;
  uint64_t key = stack ? stack : (uint64_t)pc | 1ull << 63;
  if (key == last_key && last_site) return last_site;
  pthread_mutex_lock(&sites_mu);
  const site_t *s = hrace_map_get(&here, key);
  pthread_mutex_unlock(&sites_mu);
  if (s) {
    last_key = key, last_site = &s->loc;
    return &s->loc;
  }
  hrace_report_side_t side;
  hrace__race_side_frames(&side, stack, pc);   /* symbolizes: outside sites_mu */
  const hrace_srcloc_t *loc = hrace__site_intern_frames(side.frames, side.nframes);
  pthread_mutex_lock(&sites_mu);
  hrace_map_put(&here, key, (void *)loc);
  pthread_mutex_unlock(&sites_mu);
  last_key = key, last_site = loc;
  return loc;
}

unsigned hrace__site_frames(const hrace_srcloc_t *loc, hrace_frame_t *out, unsigned max) {
  const site_t *s = (const site_t *)loc;
  unsigned n = s->nframes < max ? s->nframes : max;
  memcpy(out, s->frames, n * sizeof *out);
  return n;
}

/* The packed form: per frame, int32 line, int32 column, uint8 inlined, then the function and
 * the file, each NUL-terminated. */
const void *hrace__site_pack(const hrace_srcloc_t *loc, uint32_t *len) {
  site_t *s = (site_t *)loc;
  void *done = atomic_load_explicit(&s->packed, memory_order_acquire);
  if (done) {   /* every operation from a known stack: no lock */
    *len = s->packed_len;
    return done;
  }
  pthread_mutex_lock(&sites_mu);
  if (!atomic_load_explicit(&s->packed, memory_order_relaxed)) {
    size_t n = 0;
    for (unsigned i = 0; i < s->nframes; i++)
      n += 9 + strlen(s->frames[i].loc.func) + 1 + strlen(s->frames[i].loc.file) + 1;
    char *p = malloc(n ? n : 1), *q = p;
    if (!p) abort();
    for (unsigned i = 0; i < s->nframes; i++) {
      const hrace_frame_t *f = &s->frames[i];
      int32_t line = f->loc.line, col = f->loc.column;
      memcpy(q, &line, 4), memcpy(q + 4, &col, 4), q[8] = f->inlined, q += 9;
      size_t a = strlen(f->loc.func) + 1, b = strlen(f->loc.file) + 1;
      memcpy(q, f->loc.func, a), q += a;
      memcpy(q, f->loc.file, b), q += b;
    }
    s->packed_len = (uint32_t)n;
    atomic_store_explicit(&s->packed, p, memory_order_release);
  }
  pthread_mutex_unlock(&sites_mu);
  *len = s->packed_len;
  return atomic_load_explicit(&s->packed, memory_order_relaxed);
}

const hrace_srcloc_t *hrace__site_unpack(const void *bytes, uint32_t len) {
  hrace_frame_t f[HRACE_REPORT_FRAMES];
  unsigned n = 0;
  const char *p = bytes, *end = p + len;
  while (p < end) {
    if (end - p < 9 || n == HRACE_REPORT_FRAMES) return NULL;
    int32_t line, col;
    memcpy(&line, p, 4), memcpy(&col, p + 4, 4);
    bool inl = p[8] != 0;
    p += 9;
    const char *func = p, *z = memchr(p, 0, (size_t)(end - p));
    if (!z) return NULL;
    const char *file = z + 1;
    z = file < end ? memchr(file, 0, (size_t)(end - file)) : NULL;
    if (!z) return NULL;
    p = z + 1;
    f[n++] = (hrace_frame_t){ .loc = { func, file, line, col }, .inlined = inl };
  }
  return n ? hrace__site_intern_frames(f, n) : NULL;
}

/* ---- sides ---- */
static unsigned depth(void) {
  long d = hrace__opt.stack_depth;
  return d < 1 ? 1 : d > HRACE_REPORT_FRAMES ? HRACE_REPORT_FRAMES : (unsigned)d;
}

void hrace__race_side_frames(hrace_report_side_t *s, uint32_t stack, uintptr_t pc) {
  unsigned max = depth(), n = hrace__symbolize_frames(pc, s->frames, max);
  if (n == 0) {   /* unknown code: keep a frame with what hrace__symbolize says */
    hrace__symbolize(pc, &s->frames[0].loc);
    s->frames[0].inlined = false;
    n = 1;
  }
  const uintptr_t *pcs = NULL;
  unsigned npcs = stack ? hrace__stack_get(stack, &pcs) : 0;
  /* The stack ends at main: the C runtime's frames below it say nothing about the race. A
   * chain that does not pass through main (an OpenMP outlined region: its caller is the OpenMP
   * runtime, main's entry was pushed with a return address into libc) ends where it reaches the
   * C runtime, which is not even looked up (hrace__symbolize_in_crt says why). */
  for (unsigned i = 0; i < npcs && n < max && strcmp(s->frames[n - 1].loc.func, "main"); i++) {
    if (hrace__symbolize_in_crt(pcs[i])) break;
    if (pcs[i] != pc) n += hrace__symbolize_frames(pcs[i], s->frames + n, max - n);
  }
  s->nframes = n;
  s->loc = s->frames[0].loc;
}

static const site_t *site_of(const hrace_access_t *a) {
  return (const site_t *)a->loc;   /* loc is the first member of a site (hrace__site_intern) */
}

/* Only what dedup needs: op, rank, thread, location. */
static void side_head(hrace_report_side_t *s, const hrace_access_t *a, uint64_t off, uint64_t len) {
  bool elsewhere = a->flags & (HRACE_ACC_REMOTE | HRACE_ACC_FOREIGN);   /* made there: a site */
  hrace__report_side(s, hrace__op_name(a->op), a->rank, a->thread, off, len,
                     elsewhere ? &site_of(a)->loc : NULL, a->pc);
}

static const char *base_name(const char *path);

/* Strings built for one report; freed after it is written. */
typedef struct scratch {
  char sync_a[256], sync_b[256], hint[1024];
} scratch_t;

static void side_rest(hrace_report_side_t *s, const hrace_access_t *a, hrace_aid_t id, char *sync,
                      size_t synclen) {
  if (a->flags & (HRACE_ACC_REMOTE | HRACE_ACC_FOREIGN)) {
    const site_t *st = site_of(a);
    unsigned n = st->nframes < depth() ? st->nframes : depth();
    memcpy(s->frames, st->frames, n * sizeof *s->frames);
    s->nframes = n;
    if (a->sync) {
      snprintf(sync, synclen, "%s", a->sync);
      s->sync = sync;
    }
  } else {
    hrace__race_side_frames(s, a->stack, a->pc);
    if (a->sync) {
      snprintf(sync, synclen, "the segment after %s", a->sync);
      s->sync = sync;
    }
  }
}

/* ---- kind and hint ---- */
static const char *kind_of(const hrace_access_t *a, const hrace_access_t *b) {
  int ra = (a->flags & HRACE_ACC_REMOTE) != 0, rb = (b->flags & HRACE_ACC_REMOTE) != 0;
  if (ra && rb) return "rma-rma";
  if (ra || rb) return "remote";
  return a->rank == b->rank ? "thread" : "local";
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path ? path : "??", '/');
  return s ? s + 1 : path ? path : "??";
}

/* "rank 0's MPI_Put (x.c:25)", or "thread 1's store (x.c:40)" when both sides are in one rank. */
static void who(char *buf, size_t n, const hrace_report_side_t *s, bool same_rank) {
  const char *file = base_name(s->loc.file);
  if (same_rank || s->rank < 0)   /* (a process without MPI_Init has no rank to name) */
    snprintf(buf, n, "thread %d's %s (%s:%d)", s->thread, s->op, file, s->loc.line);
  else
    snprintf(buf, n, "rank %d's %s (%s:%d)", s->rank, s->op, file, s->loc.line);
}

static bool is_accumulate(const hrace_access_t *a) {
  return (a->flags & HRACE_ACC_REMOTE) && (a->flags & HRACE_ACC_ATOMIC);
}

/* What was missing, from the descriptors alone (the race itself says that prev does not
 * happen before now's clock): see docs/report-format.md "hint" for the cases.
 *   prev          now          missing
 *   RMA, in flight  anything   its completion (flush / unlock / fence / complete), then a
 *                              synchronisation from its origin to now's process
 *   RMA, completed  anything   a synchronisation from prev's origin, after the completion
 *   load/store      RMA        a synchronisation from prev's process to now's origin before
 *                              the issue
 *   load/store      load/store OpenMP synchronisation (same rank) or MPI (shared memory)
 * plus a second sentence when atomicity was expected: accumulates are atomic only with
 * accumulates of the same predefined datatype. */
static void hint(char *out, size_t n, const hrace_access_t *now, const hrace_access_t *prev,
                 const hrace_report_side_t *sa, const hrace_report_side_t *sb, hrace_aid_t prev_id) {
  bool same = sa->rank == sb->rank;
  char a[200], b[200];
  who(a, sizeof a, sa, same && sa->thread != sb->thread);
  who(b, sizeof b, sb, same && sa->thread != sb->thread);
  bool rnow = now->flags & HRACE_ACC_REMOTE, rprev = prev->flags & HRACE_ACC_REMOTE;
  hrace_clk_t c = atomic_load_explicit(&prev->clk, memory_order_acquire);
  size_t len = 0;
  if (rprev && c == HRACE_CLK_INF) {
    if (rnow && same)
      len = snprintf(out, n, "rank %d issued %s (%s:%d) and then %s (%s:%d) with nothing completing "
                     "the first in between (%s): MPI may apply them in either order", sb->rank,
                     sb->op, base_name(sb->loc.file), sb->loc.line, sa->op,
                     base_name(sa->loc.file), sa->loc.line,
                     prev->op == HRACE_OP_NBCALL ? "MPI_Wait, MPI_Test"
                                                 : "MPI_Win_flush, unlock, fence, complete");
    else
      len = snprintf(out, n, "%s was still in flight: no %s had completed it, and no "
                     "synchronisation after that reached %s from rank %d", b,
                     prev->op == HRACE_OP_NBCALL ? "MPI_Wait or MPI_Test"
                                                 : "MPI_Win_flush, unlock, fence or complete",
                     a, sb->rank);
  } else if (rprev) {
    const char *done = "its completion";
    if (sb->rank == sa->rank)
      len = snprintf(out, n, "%s is not ordered after %s: no synchronisation of rank %d's threads "
                     "lies between %s and the %s", a, b, sa->rank, done, sa->op);
    else
      len = snprintf(out, n, "%s is not ordered after %s: no synchronisation from rank %d to "
                     "rank %d lies between %s and the %s", a, b, sb->rank, sa->rank, done, sa->op);
  } else if (rnow) {
    if (sb->rank == sa->rank)
      len = snprintf(out, n, "%s is not ordered before %s: no OpenMP synchronisation between the "
                     "two threads lies between them", b, a);
    else
      len = snprintf(out, n, "%s is not ordered before %s: no synchronisation from rank %d to "
                     "rank %d lies between them (nor, the other way, from the operation's "
                     "completion to the %s)", b, a, sb->rank, sa->rank, sb->op);
  } else if (same) {
    len = snprintf(out, n, "%s and %s are not ordered by OpenMP synchronisation (barrier, "
                   "critical, lock, taskwait, depend)", b, a);
  } else {
    len = snprintf(out, n, "%s is not ordered after %s: no synchronisation from rank %d to "
                   "rank %d lies between them (MPI_Win_sync alone orders nothing)", a, b,
                   sb->rank, sa->rank);
  }
  if (len >= n) return;
  if (is_accumulate(now) && is_accumulate(prev))
    snprintf(out + len, n - len, ". Both are accumulate operations, but with different "
             "datatypes: they are atomic only per predefined datatype");
  else if (is_accumulate(now) || is_accumulate(prev))
    snprintf(out + len, n - len, ". Accumulate operations are atomic only with other "
             "accumulates of the same datatype, not with %s",
             is_accumulate(now) ? sb->op : sa->op);
}

/* ---- memory: variable or allocation ---- */
static void memory(hrace_report_t *r, const hrace_segment_label_t *seg) {
  if (hrace__symbolize_data(r->addr, &r->variable)) return;
  r->variable.name = NULL;
  if (!seg) return;
  r->allocation = seg->allocation;
  r->alloc_base = seg->base;
  r->alloc_size = seg->size;
  r->alloc_pc = seg->alloc_pc;
}

void hrace__race_report(hrace_report_t *r, uintptr_t addr) {
  r->addr = addr;
  if (!r->variable.name && !r->allocation) memory(r, NULL);
  hrace__report_race(r);
}

/* A pair found in the shadow of memory labelled `seg`, bytes [off, off+len) from seg.base. */
static void found(const hrace_segment_label_t *sg, hrace_aid_t now, hrace_aid_t prev, uint64_t off,
                  uint64_t len) {
  hrace_segment_label_t seg = *sg;
  const hrace_access_t *a = hrace__access_get(now), *b = hrace__access_get(prev);
  hrace_report_t r = {
    .kind = kind_of(a, b), .window = seg.window, .owner = hrace__proc.rank,
    .base = seg.base, .addr = seg.base + off, .window_call = seg.window_call,
    .window_pc = seg.window_pc,
  };
  /* OpenMP without OMPT: the threads' synchronisation is unseen, a thread race unjudgeable. */
  if (hrace__thread_sync_unseen && !strcmp(r.kind, "thread")) return;
  side_head(&r.a, a, off, len);
  side_head(&r.b, b, off, len);
  if (hrace__report_seen(&r)) return;
  scratch_t *s = malloc(sizeof *s);
  if (!s) return;
  side_rest(&r.a, a, now, s->sync_a, sizeof s->sync_a);
  side_rest(&r.b, b, prev, s->sync_b, sizeof s->sync_b);
  memory(&r, &seg);
  hint(s->hint, sizeof s->hint, a, b, &r.a, &r.b, prev);
  r.hint = s->hint;
  hrace__report_race(&r);
  free(s);
}

void hrace__race_sink(void *ctx, hrace_aid_t now, hrace_aid_t prev, uint64_t off, uint64_t len) {
  hrace_segment_label_t seg = { 0 };
  if (hrace__segment_label_hook) hrace__segment_label_hook(ctx, &seg);
  found(&seg, now, prev, off, len);
}

void hrace__race_memory(hrace_aid_t now, hrace_aid_t prev, uintptr_t addr, uint64_t len,
                        const char *allocation, uintptr_t alloc_base, uint64_t alloc_size) {
  hrace_segment_label_t seg = { .allocation = allocation, .base = allocation ? alloc_base : addr,
                                .size = alloc_size };
  found(&seg, now, prev, addr - seg.base, len);
}
