/* The history of plain memory (see history.h): per-thread tables, recording, and the check
 * at an RMA operation's issue.
 *
 * Cell updates are a sequence lock with one writer (the owning thread):
 *   writer: ver = odd; fence(release); fields; ver = even (release)
 *   reader: v0 = ver (acquire); fields; fence(acquire); valid iff ver == v0 and v0 is even.
 * A reader that keeps losing to the writer gives up on that cell after a few tries: the
 * writer is recording a newer access there, which the check would have found concurrent
 * with nothing older anyway. */
#include "access/history.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "clocks/found.h"
#include "core/hooks.h"
#include "core/race.h"
#include "report/compose.h"
#include "report/report.h"
#include "report/symbolize.h"

#define MAX_TABLES 4096
static _Atomic(hrace_hist_t *) tables[MAX_TABLES];
static _Atomic unsigned ntables;

/* Tables of threads that ended, for the next new thread: their cells stay meaningful (real
 * accesses, with their descriptors), so nothing is cleared. */
static hrace_hist_t *spare[MAX_TABLES];
static unsigned nspare;
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void table_release(void *h) {
  pthread_mutex_lock(&spare_mu);
  if (nspare < MAX_TABLES) spare[nspare++] = h;
  pthread_mutex_unlock(&spare_mu);
}
static void make_key(void) { pthread_key_create(&key, table_release); }

static hrace_hist_t *table_get(void) {
  hrace_athread_t *t = &hrace__at;
  if (t->hist) return t->hist;
  pthread_once(&key_once, make_key);
  hrace_hist_t *h = NULL;
  pthread_mutex_lock(&spare_mu);
  if (nspare) h = spare[--nspare];
  pthread_mutex_unlock(&spare_mu);
  if (!h) {
    unsigned i = atomic_load_explicit(&ntables, memory_order_relaxed);
    if (i >= MAX_TABLES) return NULL;
    void *m = mmap(NULL, sizeof *h, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return NULL;
    h = m;
    i = atomic_fetch_add_explicit(&ntables, 1, memory_order_acq_rel);
    if (i >= MAX_TABLES) {
      munmap(m, sizeof *h);
      return NULL;
    }
    atomic_store_explicit(&tables[i], h, memory_order_release);
  }
  pthread_setspecific(key, h);
  t->hist = h;
  return h;
}

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

/* Bytes [lo, hi) of `line` as a mask (lo, hi absolute addresses, clipped to the line). */
static uint64_t line_mask(uint64_t line, uintptr_t lo, uintptr_t hi) {
  uintptr_t l0 = (uintptr_t)line << HRACE_HIST_LINE, l1 = l0 + (1u << HRACE_HIST_LINE);
  if (lo < l0) lo = l0;
  if (hi > l1) hi = l1;
  if (lo >= hi) return 0;
  unsigned n = (unsigned)(hi - lo), off = (unsigned)(lo - l0);
  return (n >= 64 ? ~0ull : (1ull << n) - 1) << off;
}

/* Record [a, a+n) in the calling thread's table h as written or read by descriptor aid (0:
 * make it on first need with mk) in segment seg. */
typedef struct mkaid {
  uint16_t flags, op;
  uint32_t cls;
  uintptr_t pc;
} mkaid_t;

static void record(hrace_hist_t *h, uintptr_t a, size_t n, int writes, hrace_aid_t aid,
                   const mkaid_t *mk, uint64_t seg) {
  uintptr_t end = a + n;
  for (uint64_t line = a >> HRACE_HIST_LINE; (line << HRACE_HIST_LINE) < end; line++) {
    hrace_hcell_t *c = &h->cell[line & (HRACE_HIST_CELLS - 1)];
    uint64_t m = line_mask(line, a, end);
    uint64_t tag = LD(c->tag), wm = LD(c->wmask), rm = LD(c->rmask);
    uint64_t ws = LD(c->wseg), rs = LD(c->rseg);
    uint32_t wa = LD(c->waid), ra = LD(c->raid);
    if (tag != line) {                 /* another line lived here: it is forgotten */
      tag = line;
      wm = rm = 0;
      wa = ra = 0;
    }
    if (writes) {
      if (ws == seg && wa && (wm & m) == m) continue;
      if (ws != seg || !wa) {          /* a new segment: its bytes replace the old ones */
        if (!aid) aid = hrace__athread_aid(&hrace__at, mk->pc, mk->flags, mk->op, mk->cls);
        wa = aid;
        ws = seg;
        wm = 0;
      }
      wm |= m;
    } else {
      if (rs == seg && ra && (rm & m) == m) continue;
      if (rs != seg || !ra) {
        if (!aid) aid = hrace__athread_aid(&hrace__at, mk->pc, mk->flags, mk->op, mk->cls);
        ra = aid;
        rs = seg;
        rm = 0;
      }
      rm |= m;
    }
    uint32_t v = LD(c->ver);
    ST(c->ver, v + 1);
    atomic_thread_fence(memory_order_release);
    ST(c->tag, tag);
    ST(c->wmask, wm);
    ST(c->rmask, rm);
    ST(c->wseg, ws);
    ST(c->rseg, rs);
    ST(c->waid, wa);
    ST(c->raid, ra);
    atomic_store_explicit(&c->ver, v + 2, memory_order_release);
  }
}

void hrace__history_note(uintptr_t a, size_t n, uint16_t flags, uint16_t op, uintptr_t pc) {
  hrace_athread_t *at = &hrace__at;
  if (!n || !at->app || at->busy || !hrace__proc.mpi_ready) return;
  hrace_hist_t *h = table_get();
  if (!h) return;
  at->busy = true;
  /* Inside an MPI call (memcpy by libmpi on this thread): MPI's own access, which the MPI
   * layer accounts for. */
  if (!hrace__thread()->depth) {
    mkaid_t mk = { flags, op, (flags & HRACE_ACC_ATOMIC) ? 0xA7000000u | (uint32_t)n : 0, pc };
    at->access_pc = pc;
    record(h, a, n, (flags & HRACE_ACC_WRITE) != 0, 0, &mk, hrace__athread_segment(at));
  }
  at->busy = false;
}

void hrace__history_record(uintptr_t a, size_t n, int writes, hrace_aid_t aid, uint64_t seg) {
  hrace__athread();
  hrace_hist_t *h = table_get();
  if (h && n && aid) record(h, a, n, writes, aid, NULL, seg);
}

/* ---- the check ------------------------------------------------------------------------- */


static int races(hrace_aid_t prev, hrace_aid_t op, const hrace_access_t *now, const hrace_vc_t *view) {
  if (!prev || prev == op) return 0;
  const hrace_access_t *p = hrace__access_get(prev);
  return hrace__access_conflict(p, now) && !hrace__access_hb(p, view);
}

/* The first and one-past-last byte of mask m in `line`. */
static void mask_span(uint64_t line, uint64_t m, uintptr_t *lo, uintptr_t *hi) {
  uintptr_t base = (uintptr_t)line << HRACE_HIST_LINE;
  *lo = base + (unsigned)__builtin_ctzll(m);
  *hi = base + 64 - (unsigned)__builtin_clzll(m);
}

/* One cell of table h against bytes [lo, hi) of `line`. */
static void check_cell(const hrace_hist_t *h, uint64_t line, uintptr_t lo, uintptr_t hi,
                       hrace_aid_t op, const hrace_access_t *now, const hrace_vc_t *view,
                       hrace_found_t *fd) {
  const hrace_hcell_t *c = &h->cell[line & (HRACE_HIST_CELLS - 1)];
  uint64_t wm = 0, rm = 0;
  hrace_aid_t wa = 0, ra = 0;
  int ok = 0;
  for (int tries = 0; tries < 8 && !ok; tries++) {
    uint32_t v0 = atomic_load_explicit(&c->ver, memory_order_acquire);
    if (v0 & 1) continue;
    uint64_t tag = LD(c->tag);
    wm = LD(c->wmask);
    rm = LD(c->rmask);
    wa = LD(c->waid);
    ra = LD(c->raid);
    atomic_thread_fence(memory_order_acquire);
    if (LD(c->ver) != v0) continue;
    if (tag != line) return;
    ok = 1;
  }
  if (!ok) return;
  uint64_t bm = line_mask(line, lo, hi);
  uintptr_t a, b;
  if ((wm & bm) && races(wa, op, now, view)) {
    mask_span(line, wm & bm, &a, &b);
    hrace__found_note(fd, wa, a, b);
  }
  if ((rm & bm) && races(ra, op, now, view)) {
    mask_span(line, rm & bm, &a, &b);
    hrace__found_note(fd, ra, a, b);
  }
}

void hrace__history_check(const uint64_t *ranges, uint32_t nranges, hrace_aid_t op,
                          const hrace_vc_t *view, hrace_race_sink_t sink, void *ctx) {
  unsigned nt = atomic_load_explicit(&ntables, memory_order_acquire);
  if (!nt || !op) return;
  const hrace_access_t *now = hrace__access_get(op);
  hrace_found_t fd = { .n = 0 };
  for (unsigned t = 0; t < nt && t < MAX_TABLES; t++) {
    const hrace_hist_t *h = atomic_load_explicit(&tables[t], memory_order_acquire);
    if (!h) continue;
    for (uint32_t i = 0; i < nranges; i++) {
      uintptr_t lo = (uintptr_t)ranges[2 * i], hi = lo + (uintptr_t)ranges[2 * i + 1];
      if (hi <= lo) continue;
      uint64_t l0 = lo >> HRACE_HIST_LINE, l1 = (hi - 1) >> HRACE_HIST_LINE;
      if (l1 - l0 < HRACE_HIST_CELLS) {
        for (uint64_t line = l0; line <= l1; line++) check_cell(h, line, lo, hi, op, now, view, &fd);
      } else {
        /* Longer than the table reaches: visit each cell once, at the line it holds. */
        for (uint32_t k = 0; k < HRACE_HIST_CELLS; k++) {
          uint64_t line = LD(h->cell[k].tag);
          if (line >= l0 && line <= l1) check_cell(h, line, lo, hi, op, now, view, &fd);
        }
      }
    }
  }
  for (unsigned k = 0; k < fd.n; k++) sink(ctx, op, fd.f[k].prev, fd.f[k].lo, fd.f[k].hi - fd.f[k].lo);
}

/* ---- the default report ---------------------------------------------------------------- */

static void side(hrace_report_side_t *s, const hrace_access_t *d, uint64_t off, uint64_t len) {
  hrace__report_side(s, hrace__op_name(d->op), d->rank, d->thread, off, len,
                     (d->flags & HRACE_ACC_REMOTE) ? d->loc : NULL, d->pc);
  if (d->flags & HRACE_ACC_REMOTE) s->nframes = hrace__site_frames(d->loc, s->frames, HRACE_REPORT_FRAMES);
  else hrace__race_side_frames(s, d->stack, d->pc);
}

void hrace__history_report(void *ctx, hrace_aid_t op, hrace_aid_t access, uint64_t addr,
                           uint64_t len) {
  hrace_segment_label_t seg = { 0 };
  if (ctx && hrace__segment_label_hook) hrace__segment_label_hook(ctx, &seg);
  hrace_report_t r = { .kind = "origin-buffer", .window = seg.window,
                       .owner = hrace__proc.rank, .base = (uintptr_t)addr };
  side(&r.a, hrace__access_get(op), 0, len);
  side(&r.b, hrace__access_get(access), 0, len);
  hrace__report_race(&r);
}

/* For the descriptor sweep (clocks/access.h; docs/access.md, "Reclaiming descriptors"), at its
 * safe point: every id the history tables hold (any thread's, live or ended: another thread's
 * check reads them). */
void hrace__history_mark(void) {
  unsigned n = atomic_load_explicit(&ntables, memory_order_acquire);
  for (unsigned i = 0; i < n && i < MAX_TABLES; i++) {
    const hrace_hist_t *h = atomic_load_explicit(&tables[i], memory_order_acquire);
    if (!h) continue;
    for (unsigned k = 0; k < HRACE_HIST_CELLS; k++) {
      const hrace_hcell_t *c = &h->cell[k];
      if (!atomic_load_explicit(&c->tag, memory_order_relaxed)) continue;
      hrace__access_mark(atomic_load_explicit(&c->waid, memory_order_relaxed));
      hrace__access_mark(atomic_load_explicit(&c->raid, memory_order_relaxed));
    }
  }
}
