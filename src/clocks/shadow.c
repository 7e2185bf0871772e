/* Shadow cells and the race check (see shadow.h for what is recorded and checked).
 *
 * Encoding: the state of a byte is a *cell*, a 64-bit word
 *     bit 63      FROZEN (in a block being copied into a finer one, see below)
 *     bit 62      SYNC: a synchronisation variable (hrace__shadow_mark_sync), never checked
 *     bits 32-61  last write's descriptor id (ids are < 2^30: clocks/table.h)
 *     bits 0-31   last read's id, or RSET_BIT | id of a read set
 * and bytes that share a state share a cell. Granularity follows the accesses: each 8 bytes
 * of the region (8-aligned from its start) have a *granule word* that is
 *     a cell for all 8 bytes (bit 63 clear): what 8-byte accesses, ranges and untouched
 *         memory need, 1 shadow byte per byte;
 *     or (bit 63 set) a pointer to a block of 2 cells, one per 4-byte half (bit 62 clear),
 *         when 4-byte accesses split the granule: 3 bytes per byte;
 *     or to a block of 8 cells, one per byte (bit 62 set), when 1- or 2-byte accesses or
 *         unaligned ones do: 9 (11 after halves) bytes per byte.
 * A granule only ever gets finer; blocks come from bump arenas inside the region's own mapping
 * (touched only where used, unmapped with it), so there is nothing to free one by one.
 *
 * Concurrency (any number of application threads and the progress thread): every change is
 * made under the lock of the cells' chunk ("chunk locks" below; in full mode's shadow a chunk
 * may be biased to one thread, which holds its lock for good until another thread revokes it),
 * so most cells take plain stores; lock-free readers only ever decide that an access changes nothing. The split
 * protocol below predates the locks and is kept (it is correct with or without them): a
 * granule word goes from cell to pointer by CAS, so an update racing with the split fails
 * its CAS, sees bit 63 and starts over from the granule. Halves become bytes by first
 * freezing both half cells (CAS in bit 63, in order, so one splitter wins), copying them into
 * the new block, then swinging the granule word; updaters that meet a frozen cell start over
 * from the granule. An access that finds its own id, or an access that stands for it
 * (same-epoch elision), already recorded writes nothing (the steady state of a loop).
 *
 * Measured (bench/access, docs/access.md): an 8-byte read or write of a window location that
 * repeats what is recorded costs one granule load and two compares here. */
#include "clocks/shadow.h"
#include "clocks/found.h"
#include "clocks/table.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Read sets are immutable once published: a change allocates a new one, so a cell is always
 * replaced by one CAS. They are small and rare (only truly concurrent readers need them). */
typedef struct rset {
  uint32_t n;
  hrace_aid_t m[HRACE_RSET_MAX];
} rset_t;

static hrace_table_t rsets = HRACE_TABLE_INIT(rset_t);

#define RSET_BIT 0x80000000u
#define FROZEN (1ull << 63)
#define SYNC (1ull << 62)
#define PTR FROZEN                     /* in a granule word: a pointer to a block */
#define BYTES SYNC                     /* ... to a block of 8 (else 2) cells */
#define PTR_MASK ((1ull << 62) - 1)
#define CELL(w, r) (((uint64_t)(w) << 32) | (uint32_t)(r))
#define CELL_W(c) ((hrace_aid_t)(((c) >> 32) & 0x3FFFFFFFu))
#define CELL_R(c) ((uint32_t)(c))

typedef _Atomic uint64_t cell_t;
#define CHUNK HRACE_SHADOW_CHUNK       /* granules per chunk lock (4 KiB of the region) */
#define CAP8_LESS 768                  /* the 8-cell arena holds ngran + 256 blocks */
#define CAP2(ngran) ((ngran) + 1024)   /* the 2-cell arena's blocks */
/* Span summaries (see "spans" below): SPAN granules (512 bytes) that all hold one plain cell
 * can be recorded once, in the span's summary word (UNIFORM | cell), their granule words then
 * all 0 (which a reader takes for "see the summary": span_look). */
#define SPAN 64
#define UNIFORM (1ull << 63)
#define MAXEXC 16                      /* exceptions a summarized span may hold */
#define HRACE_SHADOW_LIKELY(x) __builtin_expect(!!(x), 1)
#define HRACE_SHADOW_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The mapping: a header, the granule words, then the two block arenas. */
typedef struct head {
  _Atomic uint64_t next2, next8;       /* bump offsets in the arenas of 2- and 8-cell blocks */
  uint64_t ngran;                      /* granules (the 2-cell arena holds CAP2 blocks, the
                                          8-cell one CAP2 - CAP8_LESS) */
  uint64_t excs;                       /* offset of the exception blocks (in cells), 0: none */
  uint64_t spans;                      /* offset of the span summaries (in cells), 0: none */
  uint64_t words, bytes;               /* offset of the arenas (in cells); mapping size */
  uint64_t locks;                      /* offset of the chunk locks (in cells) */
} head_t;
_Static_assert(sizeof(head_t) == 64, "the header fills one cache line");

static head_t *head(const hrace_shadow_t *sh) { return (head_t *)sh->cells; }
static cell_t *granules(const hrace_shadow_t *sh) { return sh->cells + 8; }

/* Bumped after every init, free, clear or sync marking: see "the ranges this thread's segment
 * already recorded" below. */
static _Atomic uint64_t shadow_gen = 1;
static void gen_bump(void) { atomic_fetch_add_explicit(&shadow_gen, 1, memory_order_acq_rel); }

/* A span shadow's granule words start on a page and each chunk's fill one (CHUNK words of 8
 * bytes: 4 KiB), so that a chunk whose spans are all summarized can give its page back
 * (span_release): the header takes the last 64 bytes of a page of its own before them. */
#define PAGE_BYTES (CHUNK * sizeof(uint64_t))
#define PAD_CELLS (PAGE_BYTES / sizeof(uint64_t) - 8)   /* cells mapped before the header */
/* A span's exception block (see "spans"): the words of up to MAXEXC exceptions, and for each
 * granule of the span the slot its word is in (meaningful while its mask bit is set). */
typedef struct exc {
  cell_t c[MAXEXC];
  _Atomic uint8_t at[SPAN];
} exc_t;
_Static_assert(sizeof(exc_t) % 64 == 0, "exception blocks fill cache lines");
#define EXC_CELLS (sizeof(exc_t) / sizeof(uint64_t))

static int shadow_init(hrace_shadow_t *sh, uint64_t size, int spans) {
  gen_bump();
  sh->biased = 0;
  sh->locks = NULL;
  sh->size = size;
  sh->cells = NULL;
  if (!size) return 0;
  uint64_t ngran = (size + 7) / 8;
  const uint64_t nspans = spans ? size / 8 / SPAN : 0;    /* of whole granules only */
  const int paged = nspans && sysconf(_SC_PAGESIZE) == (long)PAGE_BYTES;
  const uint64_t pad = paged ? PAD_CELLS : 0;
  /* Worst case, every granule split into halves and then bytes; a little more for blocks
   * lost to splits that raced (they fall back to the heap beyond this). */
  uint64_t cap2 = CAP2(ngran), cap8 = cap2 - CAP8_LESS;
  uint64_t words = paged ? 8 + (ngran + CHUNK - 1) / CHUNK * CHUNK   /* to a page */
                         : (8 + ngran + 7) & ~7ull;    /* header + granules, to a cache line */
  uint64_t locks = words + 2 * cap2 + 8 * cap8;   /* then one lock word per chunk */
  /* Then the summaries, the masks, each span's exception block index (32 bits), the count of
   * exception blocks handed out, and their arena (one block per span at most). */
  const uint64_t sums = locks + (ngran + CHUNK - 1) / CHUNK;
  const uint64_t excs = nspans ? (sums + 2 * nspans + (nspans + 1) / 2 + 1 + 7) & ~7ull : sums;
  uint64_t bytes = (excs + EXC_CELLS * nspans) * sizeof(uint64_t);
  void *m = mmap(NULL, bytes + pad * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return -1;
  sh->cells = (cell_t *)m + pad;
  head_t *h = head(sh);
  h->ngran = ngran;
  h->excs = nspans ? excs : 0;
  h->spans = nspans ? sums : 0;
  h->words = words;
  h->bytes = bytes;
  h->locks = locks;
  sh->locks = (_Atomic uint32_t *)(void *)(sh->cells + locks);
  /* Every span starts summarized as "nothing recorded" (UNIFORM | 0: its granule words are 0,
   * as a summarized span's are, and its mask is 0): the first range over a span then changes
   * one word, where it wrote the span's 64 granule words, faulting their page in, and
   * span_summarize read them back, zeroed them and gave the page back (madvise) once the
   * chunk's spans were all summarized: a 16 MiB window's first sweep cost 4 096 page faults,
   * 16 MiB of zeroed pages and 4 096 madvise calls, inside the first iteration of the
   * application's loop (bench/README.md, "Session 17"). */
  cell_t *const spw = sh->cells + sums;
  for (uint64_t b = 0; b < nspans; b++) atomic_init(&spw[b], UNIFORM);
  return 0;
}

/* The start of a shadow's mapping (a span shadow's begins a page before its granules). */
static void *shadow_base(const hrace_shadow_t *sh) {
  const head_t *h = head(sh);
  const int paged = h->spans && ((uintptr_t)(sh->cells + 8) & (PAGE_BYTES - 1)) == 0;
  return (void *)(sh->cells - (paged ? PAD_CELLS : 0));
}

int hrace__shadow_init(hrace_shadow_t *sh, uint64_t size) { return shadow_init(sh, size, 0); }
int hrace__shadow_init_spans(hrace_shadow_t *sh, uint64_t size) { return shadow_init(sh, size, 1); }
int hrace__shadow_init_biased(hrace_shadow_t *sh, uint64_t size) {
  const int r = shadow_init(sh, size, 0);
  sh->biased = 1;
  return r;
}

void hrace__shadow_free(hrace_shadow_t *sh) {
  if (sh->cells) {
    const uint64_t bytes = head(sh)->bytes;
    void *base = shadow_base(sh);
    munmap(base, bytes + (uint64_t)((char *)(void *)sh->cells - (char *)base));
  }
  sh->cells = NULL;
  sh->size = 0;
  gen_bump();
}

/* A block of n (2 or 8) cells, all set to v. */
static cell_t *block_new(hrace_shadow_t *sh, unsigned n, uint64_t v) {
  head_t *h = head(sh);
  cell_t *b;
  if (n == 2) {
    uint64_t i = atomic_fetch_add_explicit(&h->next2, 1, memory_order_relaxed);
    b = i < CAP2(h->ngran) ? sh->cells + h->words + 2 * i : NULL;
  } else {
    uint64_t i = atomic_fetch_add_explicit(&h->next8, 1, memory_order_relaxed);
    b = i < CAP2(h->ngran) - CAP8_LESS ? sh->cells + h->words + 2 * CAP2(h->ngran) + 8 * i : NULL;
  }
  if (!b && !(b = aligned_alloc(64, 64))) abort();   /* never freed: see the cap above */
  for (unsigned k = 0; k < n; k++) atomic_init(&b[k], v);
  return b;
}

/* ---- the check ------------------------------------------------------------------------- */


/* One access (or a clear / sync marking) being applied. */
enum { OP_ACCESS, OP_CLEAR, OP_SYNC };
typedef struct acc {
  int mode;
  hrace_aid_t id;
  hrace_aid_t quiet[2];            /* predecessors known not to race with this access */
  unsigned nquiet;
  hrace_aid_t before;              /* a reader known to happen before `view` (add_reader) */
  int writes;
  const hrace_access_t *now;
  const hrace_vc_t *view;
  /* Same-epoch elision (same() below): whether `now` can cover for others at all, its
   * epoch, the last ids found of its epoch (with their kind) and the last one found not. */
  int local;
  hrace_clk_t clk;
  hrace_aid_t same_id[2], notsame;
  unsigned same_kind[2], nsame;
  int skipped;                     /* a chunk went unchecked (chunk_lock) */
  const hrace_vc_t *ql;            /* the view's local part when run_next may ask the
                                      first-touch path's memo (qstep), else NULL */
  hrace_found_t fd;
} acc_t;

static void acc_init(acc_t *x, hrace_aid_t id, const hrace_vc_t *view) {
  /* Field by field: a memset here compiled to `rep stos`, whose start-up was a third of a
   * single access's time in access_full (wavefront profile). */
  x->quiet[0] = x->quiet[1] = 0;
  x->nquiet = 0;
  x->before = 0;
  x->same_id[0] = x->same_id[1] = x->notsame = 0;
  x->same_kind[0] = x->same_kind[1] = 0;
  x->nsame = 0;
  x->skipped = 0;
  x->fd.n = 0;
  x->mode = OP_ACCESS;
  x->id = id;
  x->now = hrace__access_get(id);
  x->writes = (x->now->flags & HRACE_ACC_WRITE) != 0;
  x->view = view;
  x->clk = atomic_load_explicit(&x->now->clk, memory_order_acquire);
  x->local = (x->now->flags & (HRACE_ACC_LOCALCLK | HRACE_ACC_REMOTE | HRACE_ACC_FOREIGN)) ==
                 HRACE_ACC_LOCALCLK && x->clk != HRACE_CLK_INF;
  x->ql = x->local && !(x->now->flags & HRACE_ACC_ATOMIC) ? view->local : NULL;
}

/* Does recorded access `prev` race with the access being applied? The last answer "no" is
 * remembered: over a range, the granules mostly share their predecessor (a loop writing what
 * another loop of the same segment wrote), and looking it up per granule doubled the cost of a
 * memcpy into a window (bench/access). */
__attribute__((noinline)) static int races_lookup(hrace_aid_t prev, acc_t *x) {
  const hrace_access_t *p = hrace__access_get(prev);
  if (hrace__access_conflict(p, x->now) && !hrace__access_hb(p, x->view)) return 1;
  x->quiet[x->nquiet++ & 1] = prev;
  return 0;
}
static inline int races(hrace_aid_t prev, acc_t *x) {
  if (!prev || prev == x->id || prev == x->quiet[0] || prev == x->quiet[1]) return 0;
  return races_lookup(prev, x);
}

/* Same-epoch elision. A recorded access `prev` of the same thread (context) and segment as
 * the access being applied happened at the same FastTrack epoch: every later access is ordered
 * after both or after neither, and the two never race. When prev is also a plain access that
 * conflicts with at least whatever the new one conflicts with (a plain write covers anything;
 * a plain read covers a read), recording the new access would change no later verdict: the
 * cell is left as it is, with no store at all. A stencil reads each location from about five
 * code addresses per segment; only the first one writes the shadow. The one difference a user
 * can see: a race found later names the first code address of the segment that touched the
 * bytes, not the last (either is a true partner of the race). Returns SAME_READ or SAME_WRITE
 * for a covering prev of that kind, 0 otherwise. Local descriptors only: remote operations
 * share an exporter and, while in flight, an epoch (HRACE_CLK_INF) without being ordered. */
enum { SAME_NO, SAME_READ, SAME_WRITE };
/* The last answers this thread got (id, for an access of epoch (exporter, clk)), across
 * accesses: single accesses (a wavefront's row) each start with an empty acc_t, and the
 * descriptor lookup per access showed in profiles. An answer never changes: descriptors of
 * local accesses are immutable and ids are never reused. */
static __thread struct {
  hrace_aid_t id;
  uint32_t exporter;
  hrace_clk_t clk;
  unsigned kind;
} same_tls[8] __attribute__((tls_model("initial-exec")));
static __thread unsigned same_tls_next __attribute__((tls_model("initial-exec")));

__attribute__((noinline)) static unsigned same_lookup(hrace_aid_t prev, acc_t *x) {
  unsigned k = SAME_NO;
  if (x->local) {
    unsigned hit = 0;
    for (unsigned i = 0; i < 8 && !hit; i++)
      if (same_tls[i].id == prev && same_tls[i].exporter == x->now->exporter &&
          same_tls[i].clk == x->clk)
        hit = 1, k = same_tls[i].kind;
    if (!hit) {
      const hrace_access_t *p = hrace__access_get(prev);
      if ((p->flags & (HRACE_ACC_LOCALCLK | HRACE_ACC_REMOTE | HRACE_ACC_FOREIGN |
                       HRACE_ACC_ATOMIC)) == HRACE_ACC_LOCALCLK &&
          p->exporter == x->now->exporter &&
          atomic_load_explicit(&p->clk, memory_order_acquire) == x->clk)
        k = p->flags & HRACE_ACC_WRITE ? SAME_WRITE : SAME_READ;
      unsigned i = same_tls_next++ & 7;   /* either answer: it holds for this epoch */
      same_tls[i].id = prev;
      same_tls[i].exporter = x->now->exporter;
      same_tls[i].clk = x->clk;
      same_tls[i].kind = k;
    }
  }
  if (k) {
    unsigned i = x->nsame++ & 1;
    x->same_id[i] = prev;
    x->same_kind[i] = k;
  } else {
    x->notsame = prev;
  }
  return k;
}
static inline unsigned same(hrace_aid_t prev, acc_t *x) {
  if (!prev || prev == x->notsame) return SAME_NO;
  if (prev == x->same_id[0]) return x->same_kind[0];
  if (prev == x->same_id[1]) return x->same_kind[1];
  return same_lookup(prev, x);
}
/* Does cell state (w, r) (r a single reader or none) already stand for access x? */
static inline int covered(hrace_aid_t w, uint32_t r, acc_t *x) {
  if (x->writes)
    return (w == x->id && !r) || (same(w, x) == SAME_WRITE && (!r || same(r, x)));
  return r == x->id || (r ? same(r, x) != SAME_NO : same(w, x) == SAME_WRITE);
}

/* The readers recorded in r, as a list. */
static unsigned readers(uint32_t r, hrace_aid_t out[HRACE_RSET_MAX]) {
  if (!r) return 0;
  if (!(r & RSET_BIT)) { out[0] = r; return 1; }
  const rset_t *s = hrace__table_at(&rsets, r & ~RSET_BIT);
  for (unsigned i = 0; i < s->n; i++) out[i] = s->m[i];
  return s->n;
}

/* Is reader `id` ordered before the access being applied? The last "yes" is remembered, as
 * races() remembers its last "no": over a range the granules mostly share their reader (another
 * code address of this thread and segment read them all), and the view is fixed for one access,
 * so the answer is too. */
static int read_before(hrace_aid_t id, acc_t *x) {
  if (id == x->before) return 1;
  if (!hrace__access_hb(hrace__access_get(id), x->view)) return 0;
  x->before = id;
  return 1;
}

/* The read state after x->id (seen from x->view) reads: drop readers ordered before it, add it. */
static uint32_t add_reader(uint32_t r, acc_t *x) {
  const hrace_aid_t id = x->id;
  /* The commonest: one reader (another code address of this segment, in a loop that reads a
   * location from several), ordered before this one: replaced. */
  if (!(r & RSET_BIT) && (!r || r == id || read_before(r, x))) return id;
  hrace_aid_t old[HRACE_RSET_MAX], keep[HRACE_RSET_MAX];
  unsigned n = readers(r, old), k = 0;
  for (unsigned i = 0; i < n; i++)
    if (old[i] != id && !read_before(old[i], x)) keep[k++] = old[i];
  if (k == 0) return id;
  if (k == HRACE_RSET_MAX) {        /* full: forget the oldest concurrent reader */
    for (unsigned i = 1; i < k; i++) keep[i - 1] = keep[i];
    k--;
  }
  keep[k++] = id;
  uint32_t sid = hrace__table_alloc(&rsets);
  rset_t *s = hrace__table_at(&rsets, sid);
  for (unsigned i = 0; i < k; i++) s->m[i] = keep[i];
  s->n = k;
  return sid | RSET_BIT;   /* published by the caller's CAS / store (release) */
}

static int has_reader(uint32_t r, hrace_aid_t id) {
  if (r == id) return 1;
  if (!(r & RSET_BIT)) return 0;
  hrace_aid_t m[HRACE_RSET_MAX];
  unsigned n = readers(r, m);
  for (unsigned i = 0; i < n; i++)
    if (m[i] == id) return 1;
  return 0;
}

/* Apply x to one cell standing for region bytes [lo, hi) of the access. Returns 0, or -1 when
 * the cell is frozen (or is a granule word that became a pointer): start over from the
 * granule. */
static int cell_apply(cell_t *cell, acc_t *x, uint64_t lo, uint64_t hi) {
  uint64_t old = atomic_load_explicit(cell, memory_order_acquire), neu;
  for (;;) {
    if (old & FROZEN) return -1;
    if (x->mode != OP_ACCESS) {
      neu = x->mode == OP_SYNC ? SYNC : 0;
      if (old == neu) return 0;
      if (atomic_compare_exchange_weak_explicit(cell, &old, neu, memory_order_acq_rel,
                                                memory_order_acquire))
        return 0;
      continue;
    }
    if (old & SYNC) return 0;                        /* a synchronisation variable */
    hrace_aid_t w = CELL_W(old);
    uint32_t r = CELL_R(old);
    hrace_aid_t hit[HRACE_RSET_MAX + 1];
    unsigned nhit = 0;
    if (!(r & RSET_BIT) && covered(w, r, x)) return 0;   /* nothing new: same epoch */
    if (x->writes) {
      if (w == x->id && r == 0) return 0;           /* nothing new since our own write */
      if (races(w, x)) hit[nhit++] = w;
      hrace_aid_t m[HRACE_RSET_MAX];
      unsigned n = readers(r, m);
      for (unsigned k = 0; k < n; k++)
        if (races(m[k], x)) hit[nhit++] = m[k];
      neu = CELL(x->id, 0);
    } else {
      if (has_reader(r, x->id)) return 0;            /* already recorded, no write since */
      if (r & RSET_BIT) {                            /* or a reader of the set stands for it */
        hrace_aid_t m[HRACE_RSET_MAX];
        unsigned n = readers(r, m);
        for (unsigned k = 0; k < n; k++)
          if (same(m[k], x)) return 0;
      }
      if (races(w, x)) hit[nhit++] = w;
      neu = CELL(w, add_reader(r, x));
    }
    if (atomic_compare_exchange_weak_explicit(cell, &old, neu, memory_order_acq_rel,
                                              memory_order_acquire)) {
      for (unsigned k = 0; k < nhit; k++) hrace__found_note(&x->fd, hit[k], lo, hi);
      return 0;
    }
  }
}

/* The state plain cell `old` (no FROZEN, no SYNC) takes after access x, as cell_apply would
 * leave it, noting the races x meets there as over bytes [lo, hi); adds their number to *hits.
 * For a span summary's cell, which stands for many granules at once (see "spans"). */
static uint64_t cell_next(uint64_t old, acc_t *x, uint64_t lo, uint64_t hi, unsigned *hits) {
  const hrace_aid_t w = CELL_W(old);
  const uint32_t r = CELL_R(old);
  hrace_aid_t hit[HRACE_RSET_MAX + 1], m[HRACE_RSET_MAX];
  unsigned nhit = 0;
  uint64_t neu;
  if (!(r & RSET_BIT) && covered(w, r, x)) return old;   /* nothing new: same epoch */
  if (x->writes) {
    if (w == x->id && r == 0) return old;
    if (races(w, x)) hit[nhit++] = w;
    unsigned n = readers(r, m);
    for (unsigned k = 0; k < n; k++)
      if (races(m[k], x)) hit[nhit++] = m[k];
    neu = CELL(x->id, 0);
  } else {
    if (has_reader(r, x->id)) return old;
    if (r & RSET_BIT) {
      unsigned n = readers(r, m);
      for (unsigned k = 0; k < n; k++)
        if (same(m[k], x)) return old;
    }
    if (races(w, x)) hit[nhit++] = w;
    neu = CELL(w, add_reader(r, x));
  }
  for (unsigned k = 0; k < nhit; k++) hrace__found_note(&x->fd, hit[k], lo, hi);
  *hits += nhit;
  return neu;
}

/* The commonest updates of an access, inline and without cell_apply's frame (a stencil reads
 * each location from several code addresses per segment, so most reads replace another read of
 * the same segment): a cell with at most one reader, where the access meets no race. Does what
 * cell_apply would do then and returns 1; 0 when cell_apply must decide (a read set, a race to
 * report, a frozen or sync cell). */
static inline int cell_fast(cell_t *cell, acc_t *x) {
  uint64_t old = atomic_load_explicit(cell, memory_order_acquire), neu;
  if (old & (FROZEN | SYNC)) return 0;
  hrace_aid_t w = CELL_W(old);
  uint32_t r = CELL_R(old);
  if (r & RSET_BIT) return 0;
  if (covered(w, r, x)) return 1;
  if (x->writes) {
    if (races(w, x) || races(r, x)) return 0;
    neu = CELL(x->id, 0);
  } else {
    if (races(w, x) || (r && !read_before(r, x))) return 0;
    neu = CELL(w, x->id);
  }
  atomic_store_explicit(cell, neu, memory_order_release);   /* under the chunk's lock */
  return 1;
}

/* First and one-past-last byte (0..8) of a nonzero byte mask. */
static unsigned mlo(unsigned m) { return (unsigned)__builtin_ctz(m); }
static unsigned mhi(unsigned m) { return 32u - (unsigned)__builtin_clz(m); }

static void backoff(unsigned *spins) {
  if (++*spins > 64) sched_yield();
}

static void span_materialize(hrace_shadow_t *sh, uint64_t b);

/* The span arrays (see "spans" below): summaries, masks, exception block indices. */
static uint64_t nspans(const hrace_shadow_t *sh) { return head(sh)->spans ? sh->size / 8 / SPAN : 0; }
static cell_t *spans(const hrace_shadow_t *sh) { return sh->cells + head(sh)->spans; }
/* Each span's exception mask follows the summaries: bit k set when granule k of a summarized
 * span is an exception, whose word is in the span's exception block. */
static cell_t *masks(const hrace_shadow_t *sh) { return spans(sh) + sh->size / 8 / SPAN; }
/* Then per span the index + 1 of its exception block (0: none yet), the count of blocks
 * handed out, and the blocks, 64-byte aligned. */
static _Atomic uint32_t *exc_index(const hrace_shadow_t *sh) {
  return (_Atomic uint32_t *)(void *)(masks(sh) + sh->size / 8 / SPAN);
}
static cell_t *exc_count(const hrace_shadow_t *sh) {
  const uint64_t n = sh->size / 8 / SPAN;
  return masks(sh) + n + (n + 1) / 2;
}
static exc_t *exc_blocks(const hrace_shadow_t *sh) { return (exc_t *)(void *)(sh->cells + head(sh)->excs); }
/* Span b's exception block, NULL when it has none (a reader that saw a mask bit sees it:
 * the index is stored before the first bit). */
static inline exc_t *exc_of(const hrace_shadow_t *sh, uint64_t b) {
  const uint32_t i = atomic_load_explicit(&exc_index(sh)[b], memory_order_acquire);
  return i ? exc_blocks(sh) + (i - 1) : NULL;
}
/* ... or a new one, handed out on the span's first exception (under the chunk lock; a span
 * keeps its block for the region's life, so there are never more blocks than spans). */
static exc_t *exc_get(hrace_shadow_t *sh, uint64_t b) {
  exc_t *e = exc_of(sh, b);
  if (e) return e;
  const uint64_t i = atomic_fetch_add_explicit(exc_count(sh), 1, memory_order_relaxed);
  atomic_store_explicit(&exc_index(sh)[b], (uint32_t)i + 1, memory_order_release);
  return exc_blocks(sh) + i;
}
/* The word of exception granule k of span b (its mask bit set). */
static inline cell_t *exc_word(const hrace_shadow_t *sh, uint64_t b, unsigned k) {
  exc_t *e = exc_of(sh, b);
  return &e->c[atomic_load_explicit(&e->at[k], memory_order_relaxed) & (MAXEXC - 1)];
}

/* Where granule g's word is, under its chunk's lock: the granule word itself, the slot of an
 * exception of a summarized span, or NULL for a granule that its span's summary stands for. */
static inline cell_t *word_at(const hrace_shadow_t *sh, uint64_t g) {
  const uint64_t b = g / SPAN;
  if (b < nspans(sh) && atomic_load_explicit(&spans(sh)[b], memory_order_relaxed)) {
    const uint64_t m = atomic_load_explicit(&masks(sh)[b], memory_order_relaxed);
    return m >> (g % SPAN) & 1 ? exc_word(sh, b, (unsigned)(g % SPAN)) : NULL;
  }
  return &granules(sh)[g];
}

/* The state of granule g, whose granule word a reader without the lock read as 0, in a span
 * shadow: 0 (nothing recorded) while its span holds no summary, else the summary's cell or
 * the exception's word; *how says which (0 granule word, 1 summary, 2 exception). ~0 when the
 * summary changed under the look (the caller takes the general path). Publication order (see
 * "spans"): an exception's word and slot are stored before its mask bit, a summary before the
 * zero words of its granules, and a span's bits are dropped only after its summary. */
static inline uint64_t span_look(const hrace_shadow_t *sh, uint64_t g, unsigned *how) {
  *how = 0;
  const uint64_t b = g / SPAN;
  if (b >= nspans(sh)) return 0;
  const uint64_t s = atomic_load_explicit(&spans(sh)[b], memory_order_acquire);
  if (!s) return 0;
  const uint64_t m = atomic_load_explicit(&masks(sh)[b], memory_order_acquire);
  uint64_t v = s & ~UNIFORM;
  *how = 1;
  if (m >> (g % SPAN) & 1) {
    v = atomic_load_explicit(exc_word(sh, b, (unsigned)(g % SPAN)), memory_order_acquire);
    *how = 2;
  }
  return atomic_load_explicit(&spans(sh)[b], memory_order_acquire) == s ? v : ~0ull;
}


/* Apply x to the bytes `m` (mask, bit i = byte 8g+i) of granule g; `valid` masks the bytes
 * that exist (the region's last granule may be short). */
static void granule_apply(hrace_shadow_t *sh, uint64_t g, unsigned m, unsigned valid, acc_t *x) {
  cell_t *gw = &granules(sh)[g];
  if (head(sh)->spans && !(gw = word_at(sh, g))) {   /* (the summary's state is fixed: locked) */
    span_materialize(sh, g / SPAN);                  /* a summarized span: granules again */
    gw = &granules(sh)[g];
  }
  const uint64_t base = 8 * g;
  unsigned spins = 0;
  for (;;) {
    uint64_t v = atomic_load_explicit(gw, memory_order_acquire);
    if (!(v & PTR)) {                                  /* one cell for the granule */
      if (((m | ~valid) & 0xFF) == 0xFF) {
        if ((x->mode == OP_ACCESS && cell_fast(gw, x)) ||
            !cell_apply(gw, x, base + mlo(m), base + mhi(m)))
          return;
        continue;
      }
      unsigned lo4 = m & 0x0F, hi4 = m & 0xF0;
      int halves = (!lo4 || lo4 == (valid & 0x0F)) && (!hi4 || hi4 == (valid & 0xF0));
      cell_t *b = block_new(sh, halves ? 2 : 8, v);
      uint64_t nv = (uint64_t)(uintptr_t)b | PTR | (halves ? 0 : BYTES);
      atomic_compare_exchange_strong_explicit(gw, &v, nv, memory_order_acq_rel,
                                              memory_order_acquire);
      continue;                                        /* in either case: look again */
    }
    cell_t *b = (cell_t *)(uintptr_t)(v & PTR_MASK & ~BYTES);
    if (v & BYTES) {                                   /* one cell per byte */
      for (unsigned i = 0; i < 8; i++)
        if (m & (1u << i)) cell_apply(&b[i], x, base + i, base + i + 1);
      return;
    }
    unsigned lo4 = m & 0x0F, hi4 = m & 0xF0;           /* one cell per half */
    if ((!lo4 || lo4 == (valid & 0x0F)) && (!hi4 || hi4 == (valid & 0xF0))) {
      int frozen = 0;
      if (lo4) frozen |= cell_apply(&b[0], x, base + mlo(lo4), base + mhi(lo4));
      if (hi4 && !frozen) frozen |= cell_apply(&b[1], x, base + mlo(hi4), base + mhi(hi4));
      if (!frozen) return;
      backoff(&spins);                                 /* being split into bytes: wait */
      continue;
    }
    /* Split the halves into bytes: freeze both cells (in order: one splitter wins cell 0),
     * copy, swing the granule word. */
    uint64_t c0 = atomic_load_explicit(&b[0], memory_order_acquire);
    if ((c0 & FROZEN) ||
        !atomic_compare_exchange_strong_explicit(&b[0], &c0, c0 | FROZEN, memory_order_acq_rel,
                                                 memory_order_acquire)) {
      backoff(&spins);
      continue;
    }
    uint64_t c1 = atomic_load_explicit(&b[1], memory_order_acquire);
    while (!atomic_compare_exchange_weak_explicit(&b[1], &c1, c1 | FROZEN, memory_order_acq_rel,
                                                  memory_order_acquire)) {
    }
    cell_t *nb = block_new(sh, 8, c0);
    for (unsigned i = 4; i < 8; i++) atomic_init(&nb[i], c1 & ~FROZEN);
    uint64_t nv = (uint64_t)(uintptr_t)nb | PTR | BYTES;
    atomic_compare_exchange_strong_explicit(gw, &v, nv, memory_order_acq_rel, memory_order_acquire);
  }
}

/* Clear or mark a whole granule: the granule word becomes one cell again (a block it pointed
 * to is dropped; an access racing with this may land in the dropped block, as it may land
 * before the clear). */
static void granule_set(hrace_shadow_t *sh, uint64_t g, uint64_t val) {
  cell_t *gw = &granules(sh)[g];
  uint64_t v = atomic_load_explicit(gw, memory_order_acquire);
  while (v != val && !atomic_compare_exchange_weak_explicit(gw, &v, val, memory_order_acq_rel,
                                                            memory_order_acquire)) {
  }
}

/* The new state of uniform granule word v after access x, when x meets no race there and
 * the word is a plain cell with at most one reader (v itself when x is already recorded);
 * ~0 (never a cell: it has PTR set) when granule_apply must decide. */
static inline uint64_t qstep(uint64_t v, hrace_aid_t id, const hrace_vc_t *vw);
static inline uint64_t run_next(uint64_t v, acc_t *x) {
  /* The first-touch path's answers first (qstep, below): the same verdict for the plainest
   * case (local plain accesses, no race), kept per thread across accesses, where x's own
   * caches start empty on every range call. A stencil's row ranges meet the cell the row
   * before met, and each worked it out again through the descriptors (76 instructions per
   * call over the row's spans and ends: bench/README.md, "Session 13"). */
  if (x->ql) {
    const uint64_t n = qstep(v, x->id, x->view);
    if (n != ~0ull) return n;
  }
  if (v & (PTR | SYNC)) return ~0ull;
  hrace_aid_t w = CELL_W(v);
  uint32_t r = CELL_R(v);
  if (r & RSET_BIT) return ~0ull;
  if (covered(w, r, x)) return v;
  if (x->writes) return races(w, x) || races(r, x) ? ~0ull : CELL(x->id, 0);
  return races(w, x) || (r && !read_before(r, x)) ? ~0ull : CELL(w, x->id);
}

/* An access over whole granules [g, gend), where the granules hold plain cells: granule
 * after granule, the next state is worked out once per distinct old one (over a range the
 * granules mostly share their state: what one loop of a previous or this segment left), and
 * a granule that already says it takes no store. Returns the first granule it could not
 * handle so (a finer granule, a read set, a race to report: granule_apply). */
static uint64_t access_run(hrace_shadow_t *sh, uint64_t g, uint64_t gend, acc_t *x) {
  cell_t *gw = granules(sh);
  uint64_t last = ~0ull, next = ~0ull;
  for (; g < gend; g++) {
    uint64_t v = atomic_load_explicit(&gw[g], memory_order_acquire);
    if (v != last) {
      last = v;
      next = run_next(v, x);
      if (next == ~0ull) break;
    }
    if (next != v) atomic_store_explicit(&gw[g], next, memory_order_release);   /* locked */
  }
  return g;
}

/* ---- spans ------------------------------------------------------------------------------ */

/* Span summaries (window shadows only: hrace__shadow_init_spans). A range access over whole
 * spans whose granules all hold one plain cell, the commonest shape of a compute loop over a
 * window (a stencil's row, a transpose's block, a put's halo), still worked granule after
 * granule: a load and often a store per 8 bytes, in a shadow as large as the data, on every
 * segment. Such a span is now recorded once: its summary word says UNIFORM | cell, and its
 * granule words say 0. A span may keep up to MAXEXC *exceptions*, granules that hold their
 * own word (a plain cell or a finer block) in a slot of the span's exception block and whose
 * bit is set in the span's mask word: a row's edge elements, accessed one by one by other code
 * addresses than the row's range. An
 * access over most of a span changes the summary (the next state of the cell, worked out once
 * as access_run would for each granule) and, granule by granule, the exceptions it covers; the
 * summary's granules it leaves out become exceptions first. An access over a few granules of the
 * span makes them exceptions and goes on granule by granule. What fits neither (a race or a
 * read set in the summary's cell, too many exceptions, a clear) first writes the cell back into
 * the granules and clears summary and mask (span_materialize), and the general path goes on as
 * before. A span becomes summarized when an access over most of it left all but MAXEXC of its
 * granules equal (span_part, span_summarize).
 *
 * Invariant, under the chunk's lock (spans lie inside chunks): a summary is nonzero (UNIFORM)
 * exactly when the span is summarized (a new shadow's spans all are, with the cell 0: nothing
 * recorded); each granule word of the span is then 0, a granule
 * whose mask bit is set has its word in the block's slot at[k], every other stands for the
 * summary's cell; a mask is 0 when its summary is. Lock-free readers of one granule that meet 0
 * read the summary (0: nothing recorded), the mask, an exception's slot, and the summary again
 * (span_look; docs/access.md, "Lock-free readers", has the publication order). Summarizing
 * stores the exceptions' slots and words, the mask, the summary, then the zero words, and
 * gives the chunk's page back when all its spans are summarized (span_release);
 * materializing stores the granules (exceptions from their slots), then clears the summary,
 * then the mask; a granule becomes an exception by taking the summary's cell (the same state)
 * in its slot before its bit. A reader of a whole span (apply's unlocked look, span_steady)
 * reads summary, mask, the exceptions, and the summary again. Cost: 20 bytes per 512 of a
 * window, and 192 per span that has exceptions. */
/* Bits set in x (no popcnt instruction in the baseline x86-64 this is built for; the libgcc
 * call showed in profiles). */
static inline unsigned pop64(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* Bits [a, b) of a span's exception mask (0 <= a < b <= SPAN). */
static inline uint64_t span_bits(uint64_t a, uint64_t b) {
  return (b - a == SPAN ? ~0ull : ((1ull << (b - a)) - 1)) << a;
}

/* Write span b's state back into its granules (the summary's cell, and each exception's word
 * from its block) and drop the summary, then the mask (under the chunk lock). On a page given
 * back (span_release), the first store faults a zero page in again. */
static void span_materialize(hrace_shadow_t *sh, uint64_t b) {
  cell_t *sp = &spans(sh)[b], *mp = &masks(sh)[b], *gw = granules(sh) + b * SPAN;
  uint64_t s = atomic_load_explicit(sp, memory_order_acquire);
  if (!s) return;
  const uint64_t m = atomic_load_explicit(mp, memory_order_relaxed);
  for (unsigned k = 0; k < SPAN; k++)
    atomic_store_explicit(&gw[k],
                          m >> k & 1 ? atomic_load_explicit(exc_word(sh, b, k), memory_order_relaxed)
                                     : s & ~UNIFORM,
                          memory_order_release);
  atomic_store_explicit(sp, 0, memory_order_release);
  atomic_store_explicit(mp, 0, memory_order_release);
}

/* Granules `want` (bits) of summarized span b, whose summary is s, become exceptions: each gets
 * the summary's cell in the next free slot of the span's block, then its bit (under the chunk
 * lock; the caller keeps the span's exceptions within MAXEXC). The slots fill in order: the
 * next free one is the number of bits set. */
static void span_except(hrace_shadow_t *sh, uint64_t b, uint64_t want, uint64_t s) {
  cell_t *mp = &masks(sh)[b];
  const uint64_t m = atomic_load_explicit(mp, memory_order_relaxed);
  want &= ~m;
  if (!want) return;
  exc_t *e = exc_get(sh, b);
  unsigned j = pop64(m);
  for (uint64_t w = want; w; w &= w - 1, j++) {
    atomic_store_explicit(&e->c[j & (MAXEXC - 1)], s & ~UNIFORM, memory_order_relaxed);
    atomic_store_explicit(&e->at[__builtin_ctzll(w)], (uint8_t)j, memory_order_relaxed);
  }
  atomic_store_explicit(mp, m | want, memory_order_release);   /* after slots and words */
}

/* Pages given back so far (all shadows; tests and measurements). */
static _Atomic uint64_t n_released;

/* Give chunk c's page of granule words back when all its spans are summarized: every word on
 * it is then 0, so the page reads the same before and after (a zero page faulted in on the
 * next read), and no other thread writes it (every store to a granule word is made under the
 * chunk's lock, which the caller holds: window shadows have no biased chunks). Lock-free
 * readers thus see 0 either way, and 0 sends them to the summary (span_look). One look at the
 * chunk's 8 summary words (a cache line), at each summarizing only. */
static void span_release(hrace_shadow_t *sh, uint64_t c) {
  const uint64_t b0 = c * (CHUNK / SPAN);
  if (b0 + CHUNK / SPAN > nspans(sh) || ((uintptr_t)(granules(sh) + c * CHUNK) & (PAGE_BYTES - 1)))
    return;                                    /* not all whole spans, or not paged */
  for (uint64_t b = b0; b < b0 + CHUNK / SPAN; b++)
    if (!atomic_load_explicit(&spans(sh)[b], memory_order_relaxed)) return;
  if (madvise((void *)(granules(sh) + c * CHUNK), PAGE_BYTES, MADV_DONTNEED) == 0)
    atomic_fetch_add_explicit(&n_released, 1, memory_order_relaxed);
}

uint64_t hrace__shadow_released(void) { return atomic_load_explicit(&n_released, memory_order_relaxed); }

uint64_t hrace__shadow_exc_blocks(const hrace_shadow_t *sh) {
  return sh->cells && nspans(sh) ? atomic_load_explicit(exc_count(sh), memory_order_relaxed) : 0;
}

/* Summarize span b if all but at most MAXEXC of its granules hold v, a plain cell (under the
 * chunk lock; the span holds no summary). The look stops at the MAXEXC + 1st difference. The
 * granules that differ become exceptions (their words move to the span's block), then mask,
 * summary, and the granule words all 0; a chunk whose spans are all summarized so gives its
 * page back. */
static void span_summarize(hrace_shadow_t *sh, uint64_t b, uint64_t v) {
  cell_t *gw = granules(sh) + b * SPAN;
  if (v & (PTR | SYNC)) return;
  uint64_t m = 0;
  unsigned n = 0;
  for (unsigned k = 0; k < SPAN; k++)
    if (atomic_load_explicit(&gw[k], memory_order_relaxed) != v) {
      if (++n > MAXEXC) return;
      m |= 1ull << k;
    }
  if (m) {
    exc_t *e = exc_get(sh, b);
    unsigned j = 0;
    for (uint64_t w = m; w; w &= w - 1, j++) {
      const unsigned k = (unsigned)__builtin_ctzll(w);
      atomic_store_explicit(&e->c[j], atomic_load_explicit(&gw[k], memory_order_relaxed),
                            memory_order_relaxed);
      atomic_store_explicit(&e->at[k], (uint8_t)j, memory_order_relaxed);
    }
  }
  atomic_store_explicit(&masks(sh)[b], m, memory_order_release);
  atomic_store_explicit(&spans(sh)[b], v | UNIFORM, memory_order_release);
  for (unsigned k = 0; k < SPAN; k++) atomic_store_explicit(&gw[k], 0, memory_order_release);
  span_release(sh, b * SPAN / CHUNK);
}

/* Access x over whole granules [g, e) of one span (under the chunk lock); does them all. */
static void span_part(hrace_shadow_t *sh, uint64_t g, uint64_t e, acc_t *x) {
  const uint64_t b = g / SPAN, base = b * SPAN, in = span_bits(g - base, e - base);
  cell_t *sp = &spans(sh)[b];
  const uint64_t s = atomic_load_explicit(sp, memory_order_acquire);
  if (s) {
    const uint64_t m = atomic_load_explicit(&masks(sh)[b], memory_order_relaxed);
    const uint64_t cell = s & ~UNIFORM, tin = in & ~m, tout = ~in & ~m;   /* the summary's */
    /* The commonest (a row's range over a span whose edges are exceptions already): the
     * summary takes it. Otherwise count: MAXEXC bounds a span's exceptions at all times. */
    enum { SUMMARY, GRANULES, MATERIALIZE } how = SUMMARY;
    if (tout) {
      const unsigned nm = pop64(m), nin = pop64(tin), nout = pop64(tout);
      if (nin < nout && nin + nm <= MAXEXC)
        how = GRANULES;                          /* a few granules leave the summary */
      else if (nout + nm > MAXEXC)
        how = MATERIALIZE;
    }
    uint64_t next = how == SUMMARY ? run_next(cell, x) : ~0ull;
    if (how == SUMMARY && next == ~0ull) {     /* a read set, a race: worked out once */
      unsigned hits = 0;                         /* (at the bytes of the granules it holds) */
      next = !tin ? cell
                  : cell_next(cell, x, 8 * (base + (uint64_t)__builtin_ctzll(tin)),
                              8 * (base + SPAN - (uint64_t)__builtin_clzll(tin)), &hits);
    }
    if (next != ~0ull) {
      /* The summary takes the access; the granules it leaves out become exceptions first,
       * and the exceptions inside take it granule by granule. */
      if (tout) span_except(sh, b, ~in, s);
      for (uint64_t w = m & in; w; w &= w - 1)
        granule_apply(sh, base + (uint64_t)__builtin_ctzll(w), 0xFF, 0xFF, x);
      if (next != cell) atomic_store_explicit(sp, next | UNIFORM, memory_order_release);
      return;
    }
    if (how == GRANULES && exc_of(sh, b)) {      /* a few granules leave the summary */
      span_except(sh, b, in, s);
      for (uint64_t w = in; w; w &= w - 1)
        granule_apply(sh, base + (uint64_t)__builtin_ctzll(w), 0xFF, 0xFF, x);
      return;
    }
    /* Too many exceptions, or the first few of a span that has had none: per granule. A span
     * summarized whole (no block yet) and then read or written a few granules at a time is
     * usually being swept element by element (a verification loop, a scattered update): its
     * 17th single access would write it back anyway, after its first 16 had taken a 192-byte
     * block that the span keeps (the wavefront kernel's peak memory 1.80x -> 2.06x of plain).
     * A span whose few granules differ for good (a stencil row's edge elements) gets its block
     * when the next range over it summarizes it with those exceptions (span_summarize). */
    span_materialize(sh, b);
  }
  for (uint64_t k = g; k < e;) {                 /* granule by granule */
    k = access_run(sh, k, e, x);
    if (k < e) granule_apply(sh, k++, 0xFF, 0xFF, x);
  }
  /* Done granule by granule over most of the span: summarize it if it allows. The granule in
   * the middle of the access holds the state a loop over the span left (a row's edge elements,
   * accessed one by one, become the exceptions). */
  if (!s && e - g >= SPAN - MAXEXC)
    span_summarize(sh, b, atomic_load_explicit(&granules(sh)[(g + e) / 2], memory_order_relaxed));
}

/* ---- chunk locks ------------------------------------------------------------------------ */

/* Every change to the cells of a chunk (CHUNK granules, 4 KiB of the region) is made by a thread
 * that holds the chunk's lock word: one CAS per chunk and access instead of one per granule, so
 * the cells themselves take plain (release) stores. The readers that decide an access changes
 * nothing (hrace__shadow_steady8, steady()) take no lock: they see a cell before or after a
 * store, and either is a state the shadow was in. The lock word holds its holder's token, so a
 * thread that would wait for itself (a signal handler that touches window memory while the
 * thread it interrupted is inside this file) skips the chunk instead of hanging: that access
 * goes unchecked.
 *
 * Biased chunks (shadows made by hrace__shadow_init_biased: full mode's). The lock's CAS is
 * most of what a single access costs where each access is the first of its segment on its
 * granule (bench/README.md, "Session 14: full mode"). So the first thread whose single access
 * (hrace__shadow_replace) finds a chunk's lock word free and never shared keeps the lock for
 * good: the word says LK_BIAS | its generation | its token, and from then on it changes the chunk's cells with
 * plain loads and stores, no atomic read-modify-write at all. What stands for the lock is the
 * thread's *sequence word* (bias_seq below, in memory every thread can read): odd while it
 * works on a chunk biased to it. The word names the owner's *generation* too (its word `gen`,
 * beside the sequence): the bias holds while that generation is the owner's current one. The
 * owner makes the sequence odd, then reads its generation and the lock word again (only a
 * compiler barrier before them), works if the word still is its bias word, then makes the
 * sequence even (release). Any other thread that wants a chunk validly biased to someone (an
 * access, a range, a clear, the progress thread's records) revokes *all* of that owner's
 * biases at once instead of locking (bias_revoke): it moves the owner's generation on by CAS,
 * with bit 0 set while it works, runs membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * puts a full memory barrier in every running thread of the process, and then waits until the
 * owner's sequence word is even or has changed. The barrier pairs with the owner's compiler
 * barrier as a full fence on both sides would (Dekker): either the owner's read of its
 * generation sees the new one (it works no more on any chunk of the old one, and takes their
 * locks like anyone from then on), or the revoker's read of the sequence sees it odd (it waits
 * for the owner's work to end, whose stores its acquiring read then sees). Either way no plain
 * store of the owner lands after the revoker, or anyone after it, read the cells; so no update
 * is lost (the argument in full: docs/access.md, "Biased chunks"). The revoker then leaves the
 * chunk it wanted LK_SHARED (free, never biased again, so a chunk two threads share costs one
 * revocation, not one per access) and clears bit 0; the owner's other chunks keep words of a
 * generation that is no longer its own: stale, as free as 0 to everyone (bias_status), whoever
 * sees bit 0 set waits. One membarrier thus takes back a thread's whole part of an array (the
 * initial thread reading thread 1's half after a region: 3911 membarriers, one per chunk,
 * before). A chunk only one thread uses (a thread's part of an `omp for`) keeps its bias until
 * someone wants one of its owner's chunks. */
static _Atomic uint32_t tokens;
__thread hrace_shadow_self_t hrace__shadow_self __attribute__((tls_model("initial-exec")));
#define token (hrace__shadow_self.token)

#define LK_BIAS HRACE_SHADOW_LK_BIAS   /* held for good by the token in the low bits ... */
#define LK_GEN HRACE_SHADOW_LK_GEN     /* ... while its owner's generation is this */
#define LK_OWNER 0x7FFu                /* a biased word's token */
#define LK_SHARED 0x20000000u          /* free or held, never to be biased again */
#define LK_TOK 0x1FFFFFFFu
/* What chunk_lock returns, besides the free word to put back (0 or LK_SHARED): */
#define LK_SKIP 0xFFFFFFFFu            /* held by this very thread: skip the chunk */
#define LK_OWN 0xFFFFFFFEu             /* biased to this thread: its sequence word is odd */
#define LK_AGAIN 0xFFFFFFFDu           /* (bias_slow) look at the word again */

/* The sequence and generation words, by token, a cache line each (each is written on every
 * biased access of its thread); threads with larger tokens never bias a chunk. Never freed: a
 * revoker may read the words of a thread that has ended (even: it ended outside any access). */
enum { NSEQ = HRACE_SHADOW_NSEQ };
_Static_assert(NSEQ - 1 == LK_OWNER && !(LK_OWNER & LK_GEN) && !(LK_GEN & (LK_BIAS | LK_SHARED)) &&
                   (LK_GEN >> HRACE_SHADOW_LK_GEN_SHIFT & 1),
               "a biased word: bias bit, generation bits (bit 0 the revocation's), token bits");
static hrace_shadow_seq_t bias_seq[NSEQ];
/* 1 when membarrier's private expedited command is registered (biasing is on), -1 when it is
 * not available or biasing is off, 0 not yet known. */
static _Atomic int bias_state;
static _Atomic uint64_t n_biased, n_revoked;   /* chunks biased, revocations, so far */

void hrace__shadow_bias_counts(uint64_t *biased, uint64_t *revoked) {
  *biased = atomic_load_explicit(&n_biased, memory_order_relaxed);
  *revoked = atomic_load_explicit(&n_revoked, memory_order_relaxed);
}

static _Atomic uint32_t *chunk_word(const hrace_shadow_t *sh, uint64_t c) { return sh->locks + c; }

static uint32_t token_get(void) {
  uint32_t me = token;
  if (HRACE_SHADOW_UNLIKELY(!me)) {
    me = atomic_fetch_add(&tokens, 1) + 1;
    if (me < NSEQ) hrace__shadow_self.mine = ~0u, hrace__shadow_self.seq = &bias_seq[me];
    token = me;
  }
  return me;
}

/* What a word with LK_BIAS says now: BIAS_VALID, biased to its token (for good, until revoked);
 * BIAS_WAIT, its owner's biases are being revoked (look again); BIAS_STALE, revoked: as free
 * as 0, and its owner's plain stores there are all visible (the acquire below pairs with the
 * revoker's release of the generation, after the owner's last biased work ended). */
enum { BIAS_VALID, BIAS_WAIT, BIAS_STALE };
static int bias_status(uint32_t cur) {
  const uint32_t g = atomic_load_explicit(&bias_seq[cur & LK_OWNER].gen, memory_order_acquire);
  if (g & 1) return BIAS_WAIT;
  return cur == hrace__shadow_bias_word(cur & LK_OWNER, g) ? BIAS_VALID : BIAS_STALE;
}

uint32_t hrace__shadow_bias_owner(const hrace_shadow_t *sh, uint64_t c) {
  const uint32_t cur = atomic_load_explicit(chunk_word(sh, c), memory_order_acquire);
  return (cur & LK_BIAS) && bias_status(cur) != BIAS_STALE ? cur & LK_OWNER : 0;
}

/* In the child of a fork only the forking thread lives, outside any biased work of its own:
 * no other sequence word can be odd there, whatever it was in the parent, and a revocation
 * that a thread of the parent had begun is complete (its generation is already the new one). */
static void bias_forked(void) {
  const uint32_t n = atomic_load_explicit(&tokens, memory_order_relaxed);
  for (uint32_t t = 1; t <= n && t < NSEQ; t++) {
    if (atomic_load_explicit(&bias_seq[t].w, memory_order_relaxed) & 1)
      atomic_store_explicit(&bias_seq[t].w, 0, memory_order_relaxed);
    const uint32_t g = atomic_load_explicit(&bias_seq[t].gen, memory_order_relaxed);
    if (g & 1) atomic_store_explicit(&bias_seq[t].gen, g & ~1u, memory_order_release);
  }
}

/* The revoker's barrier: every running thread of the process executes a full memory barrier.
 * The registration may be gone (a forked child): register again; else the global command. */
static void bias_barrier(void) {
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
      syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
    return;
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0) return;
  abort();   /* worked when the chunk was biased; no barrier now would risk lost updates */
}

static int bias_on(void) {
  int s = atomic_load_explicit(&bias_state, memory_order_acquire);
  if (HRACE_SHADOW_LIKELY(s)) return s > 0;
  s = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1 : -1;
  if (s > 0 && pthread_atfork(NULL, NULL, bias_forked) != 0) s = -1;
  int zero = 0;
  atomic_compare_exchange_strong(&bias_state, &zero, s);
  return atomic_load(&bias_state) > 0;
}

void hrace__shadow_bias_set(int on) {
  if (!on) {
    atomic_store(&bias_state, -1);
    return;
  }
  atomic_store(&bias_state, 0);
  (void)bias_on();
}

static void backoff_pause(unsigned *spins) {
  if (++*spins > 64) sched_yield();
#if defined(__x86_64__) || defined(__i386__)
  else __builtin_ia32_pause();
#endif
}

/* Enter this thread's biased work on the chunk of lock word l, which read its bias word (under
 * its current generation): 1 with the sequence word odd (leave with bias_leave), 0 when that is
 * not possible (revoked meanwhile, or this thread is already inside such work: a signal
 * handler). */
static inline int bias_enter(_Atomic uint32_t *l, uint32_t me) {
  hrace_shadow_seq_t *sq = hrace__shadow_self.seq;
  const uint32_t s = atomic_load_explicit(&sq->w, memory_order_relaxed);
  if (HRACE_SHADOW_UNLIKELY(s & 1)) return 0;
  atomic_store_explicit(&sq->w, s + 1, memory_order_relaxed);
  /* The revoker's membarrier makes this compiler barrier a full fence (see above). */
  atomic_signal_fence(memory_order_seq_cst);
  const uint32_t g = atomic_load_explicit(&sq->gen, memory_order_relaxed);
  if (HRACE_SHADOW_LIKELY(atomic_load_explicit(l, memory_order_relaxed) ==
                          hrace__shadow_bias_word(me, g)))
    return 1;
  atomic_store_explicit(&sq->w, s + 2, memory_order_release);
  return 0;
}
static inline void bias_leave(uint32_t me) {
  _Atomic uint32_t *sq = &hrace__shadow_self.seq->w;
  atomic_store_explicit(sq, atomic_load_explicit(sq, memory_order_relaxed) + 1,
                        memory_order_release);
}
static inline int seq_odd(uint32_t me) {
  return me < NSEQ && (atomic_load_explicit(&bias_seq[me].w, memory_order_relaxed) & 1);
}
/* This thread's bias word now (its generation changes only when another thread revokes). */
static inline uint32_t bias_mine(uint32_t me) {
  return hrace__shadow_bias_word(me, atomic_load_explicit(&bias_seq[me].gen,
                                                          memory_order_relaxed));
}

/* Take every chunk biased to the owner of chunk word l (which read cur, a valid bias) back at
 * once: the owner's generation moves on, with bit 0 set while the revocation runs, then one
 * membarrier, then the wait for the owner's sequence word. The chunk this thread wanted is
 * left LK_SHARED (free, never biased again: a chunk two threads share costs one revocation,
 * not one per access); the owner's other chunks keep their stale words, free for anyone (and
 * biased again by the next thread whose single access finds one: words_store). Returns
 * LK_AGAIN: the caller looks at the word again. */
__attribute__((noinline)) static uint32_t bias_revoke(_Atomic uint32_t *l, uint32_t cur,
                                                      unsigned *spins) {
  const uint32_t owner = cur & LK_OWNER;
  _Atomic uint32_t *const gw = &bias_seq[owner].gen;
  uint32_t g = atomic_load_explicit(gw, memory_order_relaxed);
  if ((g & 1) || cur != hrace__shadow_bias_word(owner, g) ||
      !atomic_compare_exchange_strong_explicit(gw, &g, (g + 2) | 1, memory_order_acq_rel,
                                               memory_order_relaxed)) {
    backoff_pause(spins);                      /* someone else is at it, or was */
    return LK_AGAIN;
  }
  bias_barrier();
  _Atomic uint32_t *sq = &bias_seq[owner].w;
  const uint32_t s = atomic_load_explicit(sq, memory_order_acquire);
  if (s & 1)
    while (atomic_load_explicit(sq, memory_order_acquire) == s) backoff_pause(spins);
  /* Nobody changes a word of this owner's while bit 0 is set (bias_status: BIAS_WAIT). */
  atomic_store_explicit(l, LK_SHARED, memory_order_relaxed);
  atomic_store_explicit(gw, g + 2, memory_order_release);
  atomic_fetch_add_explicit(&n_revoked, 1, memory_order_relaxed);
  return LK_AGAIN;
}

/* chunk_lock's cases beside a free word: the thread's own bias, a bias to revoke or revoked,
 * a holder. */
__attribute__((noinline)) static uint32_t chunk_lock_slow(_Atomic uint32_t *l, uint32_t cur,
                                                          uint32_t me, unsigned *spins) {
  if (cur & LK_BIAS) {
    /* A thread inside its own biased work (a signal handler) neither waits nor revokes: the
     * owner it would wait for may be waiting for it. */
    if (seq_odd(me)) return LK_SKIP;
    const int st = bias_status(cur);
    if (st == BIAS_STALE) {                    /* free: lock it as such */
      if (atomic_compare_exchange_weak_explicit(l, &cur, me, memory_order_acquire,
                                                memory_order_relaxed))
        return 0;
      return LK_AGAIN;
    }
    if (st == BIAS_WAIT) {                     /* its owner's biases are being revoked */
      backoff_pause(spins);
      return LK_AGAIN;
    }
    if ((cur & LK_OWNER) == me) return bias_enter(l, me) ? LK_OWN : LK_AGAIN;
    return bias_revoke(l, cur, spins);
  }
  if ((cur & LK_TOK) == me) return LK_SKIP;
  if (cur & LK_TOK) backoff_pause(spins);
  return LK_AGAIN;
}

/* Lock chunk word l: returns what chunk_unlock puts back (the free word, 0 or LK_SHARED),
 * LK_OWN for a chunk biased to this thread, or LK_SKIP (the thread holds it already). */
__attribute__((always_inline)) static inline uint32_t chunk_lock(_Atomic uint32_t *l) {
  const uint32_t me = token_get();
  unsigned spins = 0;
  for (;;) {
    uint32_t cur = atomic_load_explicit(l, memory_order_relaxed);
    if (HRACE_SHADOW_LIKELY(!(cur & ~LK_SHARED))) {
      if (HRACE_SHADOW_LIKELY(atomic_compare_exchange_weak_explicit(l, &cur, cur | me,
                                                                    memory_order_acquire,
                                                                    memory_order_relaxed)))
        return cur;
      continue;
    }
    const uint32_t r = chunk_lock_slow(l, cur, me, &spins);
    if (r != LK_AGAIN) return r;
  }
}
static void chunk_unlock(_Atomic uint32_t *l, uint32_t how) {
  if (how == LK_OWN)
    bias_leave(token);
  else
    atomic_store_explicit(l, how, memory_order_release);
}

/* Does a summarized span (summary s, whose cell stands for access x) stand for x over its
 * granules [g, e), as far as a look without the lock can tell? Each exception inside must; a
 * second look at the summary makes sure the exceptions read belong to it (they are set before
 * their bits, and the bits are dropped only after the summary: see "spans"). */
static int span_steady(const hrace_shadow_t *sh, const cell_t *spw, const cell_t *mkw,
                       uint64_t g, uint64_t e, uint64_t s, acc_t *x) {
  const uint64_t b = g / SPAN, base = b * SPAN;
  const uint64_t m = atomic_load_explicit(&mkw[b], memory_order_acquire) &
                     span_bits(g - base, e - base);
  for (uint64_t w = m; w; w &= w - 1) {
    uint64_t v = atomic_load_explicit(exc_word(sh, b, (unsigned)__builtin_ctzll(w)),
                                      memory_order_acquire);
    if ((v & PTR) || run_next(v, x) != v) return 0;
  }
  return atomic_load_explicit(&spw[b], memory_order_acquire) == s;
}

/* Whole summarized spans [b, bend) under the chunk lock, from b on while each holds summary s
 * and no exception: each takes the cell next (what apply's span loop would store there: the
 * next state of s's cell, worked out for the span before). Returns the first span that is
 * not such. Out of line and a leaf, so that the run is a tight loop: inside apply's span loop,
 * whose many live values spill, a span cost about 28 instructions, here about 8 (a range
 * over a row of a stencil or a transpose's block meets 16-32 spans that share their cell). */
__attribute__((noinline)) static uint64_t spans_same(cell_t *spw, const cell_t *mkw,
                                                     uint64_t b, uint64_t bend, uint64_t s,
                                                     uint64_t next) {
  const uint64_t nw = next | UNIFORM;
  for (; b < bend; b++) {
    const uint64_t s1 = atomic_load_explicit(&spw[b], memory_order_acquire);
    if (s1 != s || atomic_load_explicit(&mkw[b], memory_order_relaxed)) break;
    if (s1 != nw) atomic_store_explicit(&spw[b], nw, memory_order_release);
  }
  return b;
}

static void apply(hrace_shadow_t *sh, uint64_t off, uint64_t len, acc_t *x) {
  if (off >= sh->size || !len) return;
  if (len > sh->size - off) len = sh->size - off;
  const uint64_t end = off + len, g0 = off / 8, g1 = (end - 1) / 8;
  const uint64_t nsp = head(sh)->spans ? sh->size / 8 / SPAN : 0;   /* spans that exist */
  /* The shadow's arrays, read once: every atomic store below would make the compiler read
   * them again from sh and its header (a tenth of this function's instructions). */
  cell_t *const spw = spans(sh), *const mkw = masks(sh), *const gws = granules(sh);
  const uint64_t size = sh->size;
  for (uint64_t g = g0; g <= g1;) {
    const uint64_t c = g / CHUNK, cend = (c + 1) * CHUNK <= g1 ? (c + 1) * CHUNK : g1 + 1;
    const uint64_t runend = end / 8 < cend ? end / 8 : cend;   /* whole granules end here */
    if (x->mode == OP_ACCESS && 8 * g >= off) {
      /* Whole granules that already stand for the access need no lock to say so (like the
       * lock-free steady checks): only a chunk with something to change is locked. */
      const cell_t *gw = gws;
      uint64_t steady_s = 0;
      for (uint64_t same_v = ~0ull; g < runend; g++) {
        /* A summarized span's state is its summary's cell and its exceptions at every instant
         * (see "spans"): read that dense word, not the span's granules (a cache line per 512
         * bytes of the window, which this look spent most of its time waiting for). */
        if (g / SPAN < nsp && (g % SPAN == 0 || g == g0)) {
          const uint64_t s = atomic_load_explicit(&spw[g / SPAN], memory_order_acquire);
          if (s) {
            const uint64_t send = (g / SPAN + 1) * SPAN < runend ? (g / SPAN + 1) * SPAN : runend;
            if (s != steady_s && run_next(s & ~UNIFORM, x) != (s & ~UNIFORM)) break;
            steady_s = s;                      /* a row's spans mostly share their cell */
            if (!span_steady(sh, spw, mkw, g, send, s, x)) break;
            g = send - 1;
            same_v = ~0ull;
            continue;
          }
        }
        const uint64_t v = atomic_load_explicit(&gw[g], memory_order_acquire);
        if (!v) break;      /* summarized meanwhile, or nothing recorded: the locked path */
        if (v != same_v) {
          if (run_next(v, x) != v) break;
          same_v = v;
        }
      }
      if (g == cend) continue;
    }
    _Atomic uint32_t *lock = chunk_word(sh, c);
    const uint32_t how = chunk_lock(lock);
    if (how == LK_SKIP) {
      x->skipped = 1;
      g = cend;
      continue;
    }
    for (; g < cend; g++) {
      uint64_t gb = 8 * g;
      unsigned valid = size - gb >= 8 ? 0xFF : (1u << (size - gb)) - 1;
      unsigned from = g == g0 ? (unsigned)(off - gb) : 0;
      unsigned to = g == g1 ? (unsigned)(end - gb) : 8;
      unsigned m = ((1u << to) - 1) & ~((1u << from) - 1);
      if (x->mode == OP_ACCESS && m == 0xFF && valid == 0xFF) {   /* whole granules from here */
        if (g % SPAN == 0) {                   /* summarized whole spans, one word each */
          uint64_t s0 = 0, next = ~0ull, b = g / SPAN;
          const uint64_t bend = runend / SPAN < nsp ? runend / SPAN : nsp;   /* whole spans */
          for (; b < bend; b++) {
            const uint64_t s1 = atomic_load_explicit(&spw[b], memory_order_acquire);
            if (!s1) break;
            if (s1 != s0) {                    /* a row's spans mostly share their cell */
              s0 = s1;
              next = run_next(s1 & ~UNIFORM, x);
            }
            const uint64_t mk = atomic_load_explicit(&mkw[b], memory_order_relaxed);
            uint64_t n1 = next;
            if (HRACE_SHADOW_UNLIKELY(n1 == ~0ull)) {   /* a read set, a race: at the summary's
                                                           granules' bytes */
              unsigned hits = 0;
              n1 = cell_next(s1 & ~UNIFORM, x, 8 * (b * SPAN + (uint64_t)__builtin_ctzll(~mk)),
                             8 * (b * SPAN + SPAN - (uint64_t)__builtin_clzll(~mk)), &hits);
              if (!hits) next = n1;            /* the same for the spans sharing s1 */
            }
            for (uint64_t w = mk; w; w &= w - 1)
              granule_apply(sh, b * SPAN + (uint64_t)__builtin_ctzll(w), 0xFF, 0xFF, x);
            if (n1 != (s1 & ~UNIFORM))
              atomic_store_explicit(&spw[b], n1 | UNIFORM, memory_order_release);
            if (n1 == next)                    /* the spans after it that share s1, no exception */
              b = spans_same(spw, mkw, b + 1, bend, s1, next) - 1;
          }
          g = b * SPAN;
          if (g >= runend) {                   /* done with whole granules: the rest as usual */
            g--;
            continue;
          }
        }
        if (g / SPAN < nsp) {                  /* through the span, summarized or not */
          const uint64_t send = (g / SPAN + 1) * SPAN < runend ? (g / SPAN + 1) * SPAN : runend;
          span_part(sh, g, send, x);
          g = send - 1;
          continue;
        }
        uint64_t stop = access_run(sh, g, runend, x);
        if (stop > g) {
          g = stop - 1;
          continue;
        }
      }
      if (g / SPAN < nsp && atomic_load_explicit(&spw[g / SPAN], memory_order_relaxed)) {
        /* Part of a granule of a summarized span: an exception of its own, or, for a clear or
         * sync marking or when the span holds enough, the span's granules again. */
        const uint64_t b = g / SPAN, sm = atomic_load_explicit(&spw[b], memory_order_relaxed);
        const uint64_t mk = atomic_load_explicit(&mkw[b], memory_order_relaxed);
        if (x->mode != OP_ACCESS)
          span_materialize(sh, b);             /* (granule_set writes granule words) */
        else if (!(mk >> (g % SPAN) & 1)) {
          if (pop64(mk) < MAXEXC && exc_of(sh, b))   /* (none yet: see span_part) */
            span_except(sh, b, 1ull << (g % SPAN), sm);
          else
            span_materialize(sh, b);
        }
      }
      if (x->mode != OP_ACCESS && ((m | ~valid) & 0xFF) == 0xFF)
        granule_set(sh, g, x->mode == OP_SYNC ? SYNC : 0);
      else
        granule_apply(sh, g, m, valid, x);
    }
    chunk_unlock(lock, how);
  }
}

/* Does every cell [off, off+len) touches already say what access `id` would record: its own
 * write with no read since, or its own read? Then the access changes nothing and meets nothing
 * new (the full path would stop at each cell for the same reason). No descriptor is needed to
 * tell: a write's id is only ever recorded as a writer, a read's only as a reader. This is the
 * steady state of a loop over a window, and what the 5 ns budget per access pays for. */
static int steady(const hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id) {
  if (off >= sh->size || !len) return 1;
  if (len > sh->size - off) len = sh->size - off;
  const cell_t *gw = granules(sh);
  const uint64_t mine = CELL(id, 0), end = off + len, nsp = head(sh)->spans;
  for (uint64_t g = off / 8; 8 * g < end; g++) {
    uint64_t v = atomic_load_explicit(&gw[g], memory_order_acquire);
    unsigned how;
    if (!v && nsp && (v = span_look(sh, g, &how)) == ~0ull) return 0;   /* the general path */
    if (!(v & PTR)) {
      if (v != mine && !(v & SYNC) && CELL_R(v) != id) return 0;
      continue;
    }
    const cell_t *b = (const cell_t *)(uintptr_t)(v & PTR_MASK & ~BYTES);
    unsigned per = v & BYTES ? 1 : 4;                  /* bytes per cell */
    uint64_t lo = off > 8 * g ? off - 8 * g : 0, hi = end - 8 * g < 8 ? end - 8 * g : 8;
    for (uint64_t i = lo / per; i * per < hi; i++) {
      uint64_t c = atomic_load_explicit(&b[i], memory_order_acquire);
      if (c & FROZEN) return 0;
      if (c != mine && !(c & SYNC) && CELL_R(c) != id) return 0;
    }
  }
  return 1;
}

/* ---- the first touch of a granule in a segment, without acc_t --------------------------- */

/* A single access of one or two whole granules (8 or 16 bytes, 8-aligned: a scalar or a
 * vector of two doubles) is what code without loop hoisting sends, once per element. In a
 * loop with a barrier per sweep each one is the first of its segment on its granule, and the
 * general path (acc_t, apply's unlocked scan and then access_run, a descriptor lookup per
 * previous access) cost about 30 ns of CPU per access against TSan's 8 (bench/README.md,
 * "Full mode with per-access callbacks: the first-touch path"). Here the facts the verdict
 * needs about a descriptor, which never change for a local access (its thread context, epoch
 * and kind), come from a per-thread table instead of the descriptor, and the order test is one
 * compare with the view's entry, as TSan's shadow word does it. Only the plainest case is
 * taken: plain cells with at most one reader, local descriptors, and no race (every previous
 * access ordered before the view, or covering it as same_lookup would say); anything else
 * returns 0 and takes the general path, which decides exactly as before. The store is made
 * under the chunk's lock as every change is, after checking that the granules still hold what
 * the verdict was worked out from. Both tables take a descriptor's facts as immutable: the
 * descriptor sweep (clocks/access.h) keeps every id they name marked, so none is reused under
 * them (hrace__shadow_mark_answers). */
enum { QK_W = 1, QK_R = 2, QK_PLAIN = 4, QK_EXT = 8 };  /* writes; reads; plain (non-atomic),
                                                          same_lookup; a completed RMA record */
typedef struct qfact {
  hrace_aid_t id;
  uint32_t exporter;
  hrace_clk_t clk;
  uint32_t kind;                   /* QK_*; 0: never taken here */
} qfact_t;
enum { NQFACT = 256 };
static __thread qfact_t qfacts[NQFACT] __attribute__((tls_model("initial-exec")));

/* The immutable facts of descriptor id (kind 0: not usable here). A local descriptor's epoch
 * is fixed at creation. A remote operation's (an RMA record, or a store of another process in
 * shared memory: stamped by an exporter, not a local thread) is fixed at its completion, once
 * (rma/progress.c, buffers.c: the exporter stored before the clock's release store, so the
 * clock is read first): QK_EXT, usable only as a previous access, ordered or not by the view's
 * global part (hrace__access_hb); before its completion it is not taken here at all. A fact
 * with kind 0 stays so while it is cached, which only sends its accesses down the general
 * path. The particles kernel's ghost reads each meet the put of the iteration before: through
 * the general path they cost about 1 000 instructions each (bench/README.md, "Session 17"). */
__attribute__((noinline)) static const qfact_t *qfact_fill(qfact_t *f, hrace_aid_t id) {
  const hrace_access_t *p = hrace__access_get(id);
  const hrace_clk_t clk = atomic_load_explicit(&p->clk, memory_order_acquire);
  const uint32_t fl = p->flags;
  uint32_t k = 0;
  if ((fl & (HRACE_ACC_LOCALCLK | HRACE_ACC_REMOTE | HRACE_ACC_FOREIGN)) == HRACE_ACC_LOCALCLK) {
    k = (fl & HRACE_ACC_WRITE ? QK_W : 0) | (fl & HRACE_ACC_READ ? QK_R : 0) |
        (fl & HRACE_ACC_ATOMIC ? 0 : QK_PLAIN);
    if (!(k & (QK_W | QK_R))) k = 0;
  } else if (!(fl & HRACE_ACC_LOCALCLK) && (fl & (HRACE_ACC_REMOTE | HRACE_ACC_FOREIGN)))
    k = QK_EXT;
  f->exporter = p->exporter;
  f->clk = clk;
  f->kind = clk == HRACE_CLK_INF ? 0 : k;
  f->id = id;
  return f;
}
__attribute__((always_inline)) static inline const qfact_t *qfact(hrace_aid_t id) {
  qfact_t *f = &qfacts[(id ^ (id >> 8)) & (NQFACT - 1)];
  return HRACE_SHADOW_LIKELY(f->id == id) ? f : qfact_fill(f, id);
}

/* How previous access prev stands to the access (facts n) being made, seen from local clock l,
 * as bits: QO_HB ordered before it (races() would say no), QO_SAME_R / QO_SAME_W a plain access
 * of its thread and epoch that covers a read (and, a write, a write: same() would say so).
 * QO_NONE (all bits) when there is no access; 0 when neither holds (the general path decides). */
enum { QO_HB = 1, QO_SAME_R = 2, QO_SAME_W = 4, QO_NONE = 7 };
__attribute__((always_inline)) static inline unsigned qorder(hrace_aid_t prev, const qfact_t *n,
                                                             const hrace_vc_t *view) {
  if (!prev) return QO_NONE;
  if (prev & RSET_BIT) return 0;
  const qfact_t *f = qfact(prev);
  if (!f->kind) return 0;
  if (f->kind & QK_EXT) return hrace__epoch_hb(f->exporter, f->clk, view) ? QO_HB : 0;
  unsigned o = hrace__epoch_hb(f->exporter, f->clk, view->local) ? QO_HB : 0;
  if (f->exporter == n->exporter && f->clk == n->clk && (f->kind & QK_PLAIN))
    o |= f->kind & QK_W ? QO_SAME_W | QO_SAME_R : QO_SAME_R;
  return o;
}

/* The next state of plain cell v after access id (facts n), v itself when it already stands
 * for the access (covered(), with the general path's own-id checks), or ~0 when the general
 * path must decide (a read set, a finer or sync granule, a previous access not ordered). */
static inline uint64_t qnext(uint64_t v, hrace_aid_t id, const qfact_t *n, const hrace_vc_t *vw) {
  if (v & (PTR | SYNC)) return ~0ull;
  const hrace_aid_t w = CELL_W(v);
  const uint32_t r = CELL_R(v);
  if (r & RSET_BIT) return ~0ull;
  if (n->kind & QK_W) {
    if (w == id && !r) return v;
    unsigned ow = qorder(w, n, vw), or_ = qorder(r, n, vw);
    if (w && (ow & QO_SAME_W) && (or_ & QO_SAME_R)) return v;               /* covered */
    return (ow & or_ & QO_HB) ? CELL(id, 0) : ~0ull;
  }
  if (r == id) return v;
  unsigned ow = qorder(w, n, vw), or_ = qorder(r, n, vw);
  if (r ? (or_ & QO_SAME_R) : (w && (ow & QO_SAME_W))) return v;            /* covered */
  return (ow & or_ & QO_HB) ? CELL(w, id) : ~0ull;
}

static inline uint32_t chunk_lock(_Atomic uint32_t *l);
static void chunk_unlock(_Atomic uint32_t *l, uint32_t how);
static _Atomic uint32_t *chunk_word(const hrace_shadow_t *sh, uint64_t c);
static inline int words_store(hrace_shadow_t *sh, uint64_t g, unsigned k, uint64_t v0,
                              uint64_t v1, uint64_t n0, uint64_t n1);

/* The answers qnext gave this thread: in a loop, the granules an access meets mostly hold the
 * same state (what one access of the previous sweep, or of this one, left), so the answer for
 * (access, old state, clock) is looked up instead of worked out again. Two ways per access id,
 * indexed by its low bits: the ids a loop uses are handed out together, so they fill the
 * slots without collisions (a hash of (id, state) over 64 slots missed 18 % of the time on
 * `loop`'s twelve call sites). Only answers that hold for good are kept: a descriptor's facts
 * never change, and a thread's clock only grows, so an access ordered before it stays so. */
typedef hrace_shadow_memo_t qmemo_t;
enum { NQMEMO = HRACE_SHADOW_MEMO };
__thread qmemo_t hrace__shadow_memo[NQMEMO][2] __attribute__((tls_model("initial-exec")));
#define qmemo hrace__shadow_memo

/* qnext through the memo: the next state of granule word v, or ~0 (the general path). */
__attribute__((noinline)) static uint64_t qnext_fill(qmemo_t *m, uint64_t v, hrace_aid_t id,
                                                     const hrace_vc_t *vw) {
  const qfact_t *n = qfact(id);
  if (!(n->kind & QK_PLAIN)) return ~0ull;     /* atomics and remote records: general path */
  const qfact_t now = *n;                      /* the table slot may be reused in qnext */
  uint64_t next = qnext(v, id, &now, vw);
  if (next != ~0ull) {
    m[1] = m[0];                               /* the older answer moves to the second way */
    m[0] = (qmemo_t){ .v = v, .next = next, .l = vw->local, .id = id };
  }
  return next;
}
__attribute__((always_inline)) static inline uint64_t qstep(uint64_t v, hrace_aid_t id,
                                                            const hrace_vc_t *vw) {
  qmemo_t *m = qmemo[id & (NQMEMO - 1)];
  if (HRACE_SHADOW_LIKELY(m[0].v == v && m[0].id == id && m[0].l == vw->local)) return m[0].next;
  if (m[1].v == v && m[1].id == id && m[1].l == vw->local) return m[1].next;
  return qnext_fill(m, v, id, vw);
}

/* hrace__shadow_quick past the memo's first way: the second way, answers worked out, a chunk
 * lock that is taken. 1 when the access was checked and recorded here (it met no race), 0 when
 * the general path must take it. */
__attribute__((noinline)) static int quick_slow(hrace_shadow_t *sh, uint64_t g, uint64_t len,
                                                hrace_aid_t id, const hrace_vc_t *vw) {
  cell_t *gw = granules(sh) + g;
  /* A granule of a summarized span stands for the summary's cell or is an exception (its word
   * 0, the state in the span's block: span_look): an access that the state already stands for
   * (a row's edge element read again by a single access, after the row's range calls in the
   * same segment) changes nothing; an exception takes the new state in its slot, under the
   * lock; a granule the summary stands for is left to the general path, which makes it an
   * exception of its span. */
  const int spn = head(sh)->spans != 0;
  unsigned h0 = 0, h1 = 0;
  const uint64_t v0 = atomic_load_explicit(&gw[0], memory_order_acquire);
  const uint64_t c0 = !v0 && spn ? span_look(sh, g, &h0) : v0;
  const uint64_t n0 = c0 == ~0ull ? ~0ull : qstep(c0, id, vw);
  if (n0 == ~0ull) return 0;
  uint64_t v1 = 0, n1 = 0, c1 = 0;
  if (len == 16) {
    v1 = atomic_load_explicit(&gw[1], memory_order_acquire);
    c1 = !v1 && spn ? span_look(sh, g + 1, &h1) : v1;
    if (c1 == ~0ull || (n1 = qstep(c1, id, vw)) == ~0ull) return 0;
  }
  if (n0 == c0 && n1 == c1) return 1;          /* recorded already (or stood for) */
  if (h0 == 1 || h1 == 1) return 0;
  if (!h0 && !h1) {
    const int r = words_store(sh, g, (unsigned)len / 8, v0, v1, n0, n1);
    if (r >= 0) return r;
  }
  _Atomic uint32_t *lock = chunk_word(sh, g / CHUNK);
  const uint32_t how = chunk_lock(lock);
  if (how == LK_SKIP) return 0;
  /* Where the words are now (granule words, or exceptions' slots), and still what the answers
   * were worked out from? */
  cell_t *p0 = spn ? word_at(sh, g) : gw, *p1 = len == 16 ? (spn ? word_at(sh, g + 1) : gw + 1) : NULL;
  const int same = p0 && atomic_load_explicit(p0, memory_order_relaxed) == c0 &&
                   (len == 8 || (p1 && atomic_load_explicit(p1, memory_order_relaxed) == c1));
  if (same) {
    atomic_store_explicit(p0, n0, memory_order_release);
    if (len == 16) atomic_store_explicit(p1, n1, memory_order_release);
  }
  chunk_unlock(lock, how);
  return same;
}

/* hrace__shadow_quick for a granule word that reads 0 in a span shadow: mostly a granule of a
 * summarized span (a row's edge element, an exception: each is the first touch of its segment
 * there, one to a few per row and array), taken here without quick_slow's generality: the
 * state from the summary or the exception's slot (as span_look reads it), the memo's answer,
 * and for an exception that changes, the store into its slot under the chunk's lock after a
 * re-check. Anything else (16 bytes, a span without a summary, a granule the summary stands
 * for that the access would change) goes where it went: quick_slow, or 0 for the general
 * path, which makes the granule an exception. */
__attribute__((noinline)) static int quick_zero(hrace_shadow_t *sh, uint64_t g, uint64_t len,
                                                hrace_aid_t id, const hrace_vc_t *vw) {
  /* The arrays, read once (each acquire load below would make the compiler read them again
   * through sh and its header). */
  cell_t *const cells = sh->cells;
  const head_t *const h = (const head_t *)cells;
  const uint64_t nsp = sh->size / 8 / SPAN, b = g / SPAN, k = g % SPAN;
  cell_t *const spw = cells + h->spans, *const mkw = spw + nsp;
  if (len != 8 || b >= nsp) return quick_slow(sh, g, len, id, vw);
  const uint64_t s = atomic_load_explicit(&spw[b], memory_order_acquire);
  if (!s) return quick_slow(sh, g, len, id, vw);             /* nothing recorded (or was) */
  const uint64_t mk = atomic_load_explicit(&mkw[b], memory_order_acquire);
  if (!(mk >> k & 1)) {                                      /* the summary's cell */
    const uint64_t c = s & ~UNIFORM;
    return qstep(c, id, vw) == c && atomic_load_explicit(&spw[b], memory_order_acquire) == s;
  }
  const uint32_t ei = atomic_load_explicit(&((_Atomic uint32_t *)(void *)(mkw + nsp))[b],
                                           memory_order_acquire);
  exc_t *const e = (exc_t *)(void *)(cells + h->excs) + (ei - 1);
  const unsigned j = atomic_load_explicit(&e->at[k], memory_order_relaxed) & (MAXEXC - 1);
  const uint64_t c = atomic_load_explicit(&e->c[j], memory_order_acquire), n = qstep(c, id, vw);
  if (n == ~0ull || atomic_load_explicit(&spw[b], memory_order_acquire) != s) return 0;
  if (n == c) return 1;                                      /* recorded already (or stood for) */
  _Atomic uint32_t *lock = sh->locks + g / CHUNK;
  const uint32_t how = chunk_lock(lock);
  if (how == LK_SKIP) return 0;
  /* Still an exception of a summarized span, in the same slot (a span keeps its block; the
   * slots are handed out again when it is summarized again), still holding c? */
  const int same = atomic_load_explicit(&spw[b], memory_order_relaxed) &&
                   (atomic_load_explicit(&mkw[b], memory_order_relaxed) >> k & 1) &&
                   (atomic_load_explicit(&e->at[k], memory_order_relaxed) & (MAXEXC - 1)) == j &&
                   atomic_load_explicit(&e->c[j], memory_order_relaxed) == c;
  if (same) atomic_store_explicit(&e->c[j], n, memory_order_release);
  chunk_unlock(lock, how);
  return same;
}

/* quick_zero's store into an exception's slot j (span b, granule k of it), which held c under
 * summary s when the answer n was worked out: under the chunk's lock, if it is still that
 * exception's slot and still holds c. */
__attribute__((noinline)) static int zero_store(hrace_shadow_t *sh, uint64_t g, cell_t *slot,
                                                uint64_t c, uint64_t n) {
  cell_t *const cells = sh->cells;
  const head_t *const h = (const head_t *)cells;
  const uint64_t nsp = sh->size / 8 / SPAN, b = g / SPAN, k = g % SPAN;
  cell_t *const spw = cells + h->spans, *const mkw = spw + nsp;
  exc_t *const e = (exc_t *)(void *)(cells + h->excs) +
                   (atomic_load_explicit(&((_Atomic uint32_t *)(void *)(mkw + nsp))[b],
                                         memory_order_relaxed) - 1);
  _Atomic uint32_t *lock = sh->locks + g / CHUNK;
  const uint32_t how = chunk_lock(lock);
  if (how == LK_SKIP) return 0;
  /* Still an exception of a summarized span, in the same slot (a span keeps its block; the
   * slots are handed out again when it is summarized again), still holding c? */
  const int same = atomic_load_explicit(&spw[b], memory_order_relaxed) &&
                   (atomic_load_explicit(&mkw[b], memory_order_relaxed) >> k & 1) &&
                   &e->c[atomic_load_explicit(&e->at[k], memory_order_relaxed) & (MAXEXC - 1)] == slot &&
                   atomic_load_explicit(slot, memory_order_relaxed) == c;
  if (same) atomic_store_explicit(slot, n, memory_order_release);
  chunk_unlock(lock, how);
  return same;
}

int hrace__shadow_quick0(hrace_shadow_t *sh, uint64_t g, hrace_aid_t id, const hrace_vc_t *vw) {
  /* The arrays, read once (each acquire load below would make the compiler read them again
   * through sh and its header). */
  cell_t *const cells = sh->cells;
  const head_t *const h = (const head_t *)cells;
  const uint64_t nsp = h->spans ? sh->size / 8 / SPAN : 0, b = g / SPAN, k = g % SPAN;
  cell_t *const spw = cells + h->spans, *const mkw = spw + nsp;
  if (b >= nsp) return quick_slow(sh, g, 8, id, vw);
  const uint64_t s = atomic_load_explicit(&spw[b], memory_order_acquire);
  if (!s) return quick_slow(sh, g, 8, id, vw);               /* nothing recorded (or was) */
  const uint64_t mk = atomic_load_explicit(&mkw[b], memory_order_acquire);
  uint64_t c = s & ~UNIFORM;                                 /* the summary's cell */
  cell_t *slot = NULL;
  if (mk >> k & 1) {                                         /* an exception's word */
    const uint32_t ei = atomic_load_explicit(&((_Atomic uint32_t *)(void *)(mkw + nsp))[b],
                                             memory_order_acquire);
    exc_t *const e = (exc_t *)(void *)(cells + h->excs) + (ei - 1);
    slot = &e->c[atomic_load_explicit(&e->at[k], memory_order_relaxed) & (MAXEXC - 1)];
    c = atomic_load_explicit(slot, memory_order_acquire);
  }
  const qmemo_t *m = qmemo[id & (NQMEMO - 1)];
  if (m->v != c || m->id != id || m->l != vw->local) return quick_zero(sh, g, 8, id, vw);
  const uint64_t n = m->next;
  if (atomic_load_explicit(&spw[b], memory_order_acquire) != s) return 0;
  if (n == c) return 1;                                      /* recorded already (or stood for) */
  return slot ? zero_store(sh, g, slot, c, n) : 0;           /* 0: the general path makes the
                                                                granule an exception */
}

/* Granules g (and g + 1 when k is 2) of one chunk: store n0 (n1) there if they still hold v0
 * (v1), under the chunk's lock if it is free (a CAS), or with plain stores in a chunk biased to
 * this thread, which a free chunk never shared becomes in a biased shadow. 1: stored; 0: the
 * granules changed meanwhile, nothing stored; -1: the lock was not free (or is being revoked),
 * nothing stored: chunk_lock must wait. */
static inline int words_store(hrace_shadow_t *sh, uint64_t g, unsigned k, uint64_t v0,
                              uint64_t v1, uint64_t n0, uint64_t n1) {
  cell_t *gw = granules(sh) + g;
  _Atomic uint32_t *lock = chunk_word(sh, g / CHUNK);
  const uint32_t me = token;
  uint32_t cur = atomic_load_explicit(lock, memory_order_relaxed), how = cur;
  if (HRACE_SHADOW_LIKELY(me && me < NSEQ && cur == bias_mine(me))) {
    if (!bias_enter(lock, me)) return -1;
    how = LK_OWN;
  } else {
    if ((cur & ~LK_SHARED) || !me) return -1;   /* held, biased or revoked: chunk_lock's */
    /* Biased under this thread's generation as read now (not while a revocation of its
     * biases runs: no lock word ever holds a bias word made of an odd generation, which
     * hrace__shadow_bias_word makes with bit 11 set); should it be revoked meanwhile,
     * bias_enter's second look sees it. */
    uint32_t want = cur | me;
    if (!cur && sh->biased && me < NSEQ && bias_on()) {
      const uint32_t gen = atomic_load_explicit(&bias_seq[me].gen, memory_order_relaxed);
      if (!(gen & 1)) {
        want = hrace__shadow_bias_word(me, gen);
        hrace__shadow_self.mine = want, hrace__shadow_self.gen = gen;
      }
    }
    if (!atomic_compare_exchange_strong_explicit(lock, &cur, want, memory_order_acquire,
                                                 memory_order_relaxed))
      return -1;
    if (want & LK_BIAS) {                      /* this thread's for good, from now on */
      atomic_fetch_add_explicit(&n_biased, 1, memory_order_relaxed);
      if (!bias_enter(lock, me)) return -1;
      how = LK_OWN;
    }
  }
  int same = atomic_load_explicit(&gw[0], memory_order_relaxed) == v0 &&
             (k == 1 || atomic_load_explicit(&gw[1], memory_order_relaxed) == v1);
  /* A 0 in a span shadow may be a summarized span's granule, whose state is its summary's
   * (span_look): not what the answer was worked out from. The summary is fixed while the
   * chunk is locked. */
  if (HRACE_SHADOW_UNLIKELY(!v0 || !v1) && same && head(sh)->spans &&
      ((!v0 && word_at(sh, g) != gw) || (k == 2 && !v1 && word_at(sh, g + 1) != gw + 1)))
    same = 0;
  if (same) {                                  /* what the answers were worked out from */
    atomic_store_explicit(&gw[0], n0, memory_order_release);
    if (k == 2) atomic_store_explicit(&gw[1], n1, memory_order_release);
  }
  if (how == LK_OWN)
    bias_leave(me);
  else
    atomic_store_explicit(lock, how, memory_order_release);
  return same;
}

/* The memo's first way only, and a free chunk lock: a leaf that saves no register (the
 * callers' budget per access is tens of instructions); anything else is quick_slow's. */
int hrace__shadow_quick(hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id,
                        const hrace_vc_t *view) {
  if (!view->local || (off & 7) || off + len > sh->size) return 0;   /* len 8 or 16 (shadow.h) */
  const uint64_t g = off / 8;
  if (len == 16 && (g + 1) % CHUNK == 0) return 0;         /* two chunks */
  cell_t *gw = granules(sh) + g;
  const qmemo_t *m = qmemo[id & (NQMEMO - 1)];
  const uint64_t v0 = atomic_load_explicit(&gw[0], memory_order_acquire);
  if (!v0 && head(sh)->spans)
    return len == 8 ? hrace__shadow_quick0(sh, g, id, view) : quick_zero(sh, g, len, id, view);
  if (m->id != id || m->l != view->local) return quick_slow(sh, g, len, id, view);
  uint64_t v1 = v0;
  if (len == 16) v1 = atomic_load_explicit(&gw[1], memory_order_acquire);
  if (m->v != v0 || m->v != v1) return quick_slow(sh, g, len, id, view);
  const uint64_t n = m->next;
  if (n == v0) return 1;                       /* recorded already (or stood for) */
  const int r = words_store(sh, g, (unsigned)len / 8, v0, v1, n, n);
  return r >= 0 ? r : quick_slow(sh, g, len, id, view);
}

int hrace__shadow_replace(hrace_shadow_t *sh, uint64_t g, unsigned k, uint64_t v,
                         uint64_t next) {
  if (g + k > head(sh)->ngran || (k == 2 && (g + 1) % CHUNK == 0)) return 0;
  return words_store(sh, g, k, v, v, next, next) > 0;
}

/* ---- the ranges this thread's segment already recorded ----------------------------------- */

/* A plain access over bytes that a plain access of the same thread and segment already
 * recorded there (a read after a read or a write, a write after a write) is covered, in every
 * cell, by same-epoch elision (same() above), so it would store nothing; it would still visit
 * every granule to find that out. So each thread remembers, per segment, the ranges it recorded
 * (coalesced: a loop over rows grows one range), and such an access returns after a look at
 * them. Sound for the same reasons as same(): an entry covers only accesses of its own epoch,
 * which no other access can be ordered between. What another access did to the cells since
 * changes nothing either: it could only replace this segment's access by conflicting with it,
 * and was then reported as racing with it at those bytes (the skipped access would report a
 * second pair at an already reported location). The entries name the shadow and a generation
 * that every init / free / clear / sync marking bumps, so memory detached, freed, reused or
 * marked is never taken as recorded. A stencil reads each row from five code addresses per
 * segment, in three calls over the same rows: one of them now reaches the cells. */
enum { NSEEN = 4 };
typedef struct seen {
  const hrace_shadow_t *sh;
  uint64_t gen;
  uint32_t exporter;
  hrace_clk_t clk;
  int writes;
  uint64_t lo, hi;
} seen_t;
static __thread seen_t seen[NSEEN] __attribute__((tls_model("initial-exec")));
static __thread unsigned seen_next __attribute__((tls_model("initial-exec")));


static int seen_match(const seen_t *e, const hrace_shadow_t *sh, uint64_t gen, const acc_t *x) {
  return e->sh == sh && e->gen == gen && e->exporter == x->now->exporter && e->clk == x->clk;
}
/* The part of [lo, hi) that an entry covers, the largest one (*clo == *chi: none). A loop's
 * ranges over a row seldom repeat each other exactly: a stencil reads row i + 1 as "down" over
 * its columns [3, n - 1) and, one row later, as "centre" over [2, n), its edge columns read by
 * single accesses in between; the uncovered ends alone go through the cells. */
static void seen_covered(const hrace_shadow_t *sh, uint64_t gen, const acc_t *x, uint64_t lo,
                         uint64_t hi, uint64_t *clo, uint64_t *chi) {
  *clo = *chi = lo;
  for (unsigned i = 0; i < NSEEN; i++) {
    const seen_t *e = &seen[i];
    const uint64_t a = e->lo > lo ? e->lo : lo, b = e->hi < hi ? e->hi : hi;
    if (a < b && b - a > *chi - *clo && (e->writes || !x->writes) && seen_match(e, sh, gen, x))
      *clo = a, *chi = b;
  }
}
static void seen_add(const hrace_shadow_t *sh, uint64_t gen, const acc_t *x, uint64_t lo,
                     uint64_t hi) {
  for (unsigned i = 0; i < NSEEN; i++) {     /* grow a range it overlaps or touches */
    seen_t *e = &seen[i];
    if (e->writes == x->writes && lo <= e->hi && e->lo <= hi && seen_match(e, sh, gen, x)) {
      if (lo < e->lo) e->lo = lo;
      if (hi > e->hi) e->hi = hi;
      return;
    }
  }
  seen_t *e = &seen[seen_next++ % NSEEN];
  *e = (seen_t){ .sh = sh, .gen = gen, .exporter = x->now->exporter, .clk = x->clk,
                 .writes = x->writes, .lo = lo, .hi = hi };
}

__attribute__((noinline)) static void access_full(hrace_shadow_t *sh, uint64_t off,
                                                  uint64_t len, hrace_aid_t id,
                                                  const hrace_vc_t *view,
                                                  hrace_race_sink_t sink, void *ctx) {
  acc_t x;
  acc_init(&x, id, view);
  if (off >= sh->size || !len) return;
  if (len > sh->size - off) len = sh->size - off;
  /* Ranges only: single accesses rarely repeat a range of their own segment exactly, and
   * looking (and recording) cost a random-access kernel (particles) more than it saved. */
  const int plain = len > 16 && x.local && !(x.now->flags & HRACE_ACC_ATOMIC);
  const uint64_t gen = atomic_load_explicit(&shadow_gen, memory_order_acquire);
  uint64_t clo = off, chi = off;
  if (plain) seen_covered(sh, gen, &x, off, off + len, &clo, &chi);
  if (clo == chi) {
    apply(sh, off, len, &x);
  } else {                                     /* the ends a recorded range leaves out */
    /* An end of one or two granules (a row's edge element) is what the first-touch path
     * takes; apply's set-up cost several times as much. */
    const uint64_t nlo = clo - off, nhi = off + len - chi;
    if (nlo && !((nlo == 8 || nlo == 16) && hrace__shadow_quick(sh, off, nlo, id, view)))
      apply(sh, off, nlo, &x);
    if (nhi && !((nhi == 8 || nhi == 16) && hrace__shadow_quick(sh, chi, nhi, id, view)))
      apply(sh, chi, nhi, &x);
  }
  if (plain && !x.skipped) seen_add(sh, gen, &x, off, off + len);
  for (unsigned k = 0; k < x.fd.n; k++)
    sink(ctx, id, x.fd.f[k].prev, x.fd.f[k].lo, x.fd.f[k].hi - x.fd.f[k].lo);
}

/* Not the steady state: the first touch of a single access in its segment (quick), else the
 * general path. A 16-byte access tries quick before steady(): in a loop of vector accesses
 * each granule is touched once per segment. */
__attribute__((noinline)) static void access_first(hrace_shadow_t *sh, uint64_t off,
                                                   uint64_t len, hrace_aid_t id,
                                                   const hrace_vc_t *view,
                                                   hrace_race_sink_t sink, void *ctx) {
  if ((len == 8 || len == 16) && hrace__shadow_quick(sh, off, len, id, view)) return;
  if (len == 16 && steady(sh, off, len, id)) return;   /* finer granules that say so */
  access_full(sh, off, len, id, view, sink, ctx);
}

/* The steady state is a leaf that saves no register; the rest is a tail call. */
void hrace__shadow_access(hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id,
                          const hrace_vc_t *view, hrace_race_sink_t sink, void *ctx) {
  if (len == 8 && !(off & 7) && off < sh->size) {   /* the commonest: an aligned 8 bytes */
    uint64_t v = atomic_load_explicit(&granules(sh)[off / 8], memory_order_acquire);
    if (v == CELL(id, 0) || (!(v & (PTR | SYNC)) && CELL_R(v) == id)) return;
  } else if (len != 16 && (len < 16 || off >= sh->size || !head(sh)->spans) &&
             HRACE_SHADOW_LIKELY(steady(sh, off, len, id))) {
    return;
  } else if (len > 16) {   /* (on a window: apply's lock-free look is steady() per span) */
    access_full(sh, off, len, id, view, sink, ctx);   /* ranges: straight to the general path */
    return;
  }
  access_first(sh, off, len, id, view, sink, ctx);
}

void hrace__shadow_clear(hrace_shadow_t *sh, uint64_t off, uint64_t len) {
  acc_t x = { .mode = OP_CLEAR };
  apply(sh, off, len, &x);
  gen_bump();   /* after: a range recorded before the end of this is never taken as recorded */
}

void hrace__shadow_mark_sync(hrace_shadow_t *sh, uint64_t off, uint64_t len) {
  acc_t x = { .mode = OP_SYNC };
  apply(sh, off, len, &x);
  gen_bump();   /* after: a range recorded before the end of this is never taken as recorded */
}

/* Shadow memory in use, for the benchmarks and docs/access.md: granule words of the region
 * (resident or not), and blocks handed out. */
void hrace__shadow_usage(const hrace_shadow_t *sh, uint64_t *words, uint64_t *blocks2,
                         uint64_t *blocks8) {
  if (!sh->cells) {
    *words = *blocks2 = *blocks8 = 0;
    return;
  }
  const head_t *h = head(sh);
  *words = h->ngran;
  *blocks2 = atomic_load_explicit(&((head_t *)h)->next2, memory_order_relaxed);
  *blocks8 = atomic_load_explicit(&((head_t *)h)->next8, memory_order_relaxed);
}

/* ---- the descriptor sweep: walking the cells ---------------------------------------------- */

/* What the sweep of clocks/access.h needs from the shadow (docs/access.md, "Reclaiming
 * descriptors"): every descriptor id a cell of a region holds, through read sets too, and the
 * read sets no cell holds any more, which are given back like descriptors. Run with every
 * thread that could change a cell stopped (the caller's safe point), so plain walks suffice.
 * The walk reads only granule pages that are resident (mincore): untouched memory holds no
 * id, and reading it would map it. */

static uint64_t *rset_marks;            /* one bit per read set id below rset_end */
static uint32_t rset_end;
static size_t rset_marks_bytes;

static void mark_cell(uint64_t c) {
  if (c & SYNC) return;
  hrace__access_mark(CELL_W(c));
  uint32_t r = CELL_R(c);
  if (!(r & RSET_BIT)) {
    hrace__access_mark(r);
    return;
  }
  uint32_t sid = r & ~RSET_BIT;
  const rset_t *s = hrace__table_at(&rsets, sid);
  for (unsigned i = 0; i < s->n; i++) hrace__access_mark(s->m[i]);
  if (rset_marks && sid < rset_end) rset_marks[sid / 64] |= 1ull << (sid % 64);
}

bool hrace__shadow_sweep_begin(void) {
  rset_end = hrace__table_end(&rsets);
  rset_marks_bytes = ((size_t)rset_end + 63) / 64 * sizeof(uint64_t);
  void *m = mmap(NULL, rset_marks_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  rset_marks = m == MAP_FAILED ? NULL : m;
  if (rset_marks) hrace__table_drop_free(&rsets);   /* freed again at the end: held nowhere */
  return rset_marks != NULL;
}

/* Mark the ids of granule word (or exception word) v: a cell, or a block of finer cells. */
static void mark_word(uint64_t v) {
  if (!(v & PTR)) {
    mark_cell(v);
    return;
  }
  const cell_t *blk = (const cell_t *)(uintptr_t)(v & PTR_MASK & ~BYTES);
  for (unsigned k = 0; k < (v & BYTES ? 8u : 2u); k++)
    mark_cell(atomic_load_explicit(&blk[k], memory_order_acquire) & ~FROZEN);
}

void hrace__shadow_mark(const hrace_shadow_t *sh) {
  if (!sh->cells) return;
  const head_t *h = head(sh);
  for (uint64_t b = 0; b < nspans(sh); b++) {   /* summaries and their exceptions */
    uint64_t s = atomic_load_explicit(&spans(sh)[b], memory_order_acquire);
    if (!s) continue;
    mark_cell(s & ~UNIFORM);
    for (uint64_t m = atomic_load_explicit(&masks(sh)[b], memory_order_acquire); m; m &= m - 1)
      mark_word(atomic_load_explicit(exc_word(sh, b, (unsigned)__builtin_ctzll(m)),
                                     memory_order_acquire));
  }
  const long page = sysconf(_SC_PAGESIZE);
  const uint64_t per = (uint64_t)page / sizeof(uint64_t);     /* words per page */
  /* From the page the granule words begin on (mincore takes page-aligned addresses). */
  const cell_t *base = (const cell_t *)((uintptr_t)(sh->cells + 8) & ~(uintptr_t)(page - 1));
  const uint64_t first = (uint64_t)(sh->cells + 8 - base), last = first + h->ngran;
  unsigned char vec[256];
  for (uint64_t w0 = 0; w0 < last; w0 += per * sizeof vec) {
    uint64_t w1 = w0 + per * sizeof vec < last ? w0 + per * sizeof vec : last;
    size_t npages = (size_t)((w1 - w0 + per - 1) / per);
    if (mincore((void *)(base + w0), npages * (size_t)page, vec) != 0)
      memset(vec, 1, sizeof vec);                             /* cannot tell: walk it all */
    for (size_t p = 0; p < npages; p++) {
      if (!(vec[p] & 1)) continue;
      uint64_t a = w0 + p * per, b = a + per < w1 ? a + per : w1;
      if (a < first) a = first;
      for (uint64_t i = a; i < b; i++)   /* (a summarized span's are 0: marked above) */
        mark_word(atomic_load_explicit(&base[i], memory_order_acquire));
    }
  }
}

uint32_t hrace__shadow_sweep_end(void) {
  if (!rset_marks) return 0;
  uint32_t freed = 0;
  for (uint32_t id = rset_end; id-- > 1;) {
    if (rset_marks[id / 64] >> (id % 64) & 1) continue;
    hrace__table_free(&rsets, id);
    freed++;
  }
  munmap(rset_marks, rset_marks_bytes);
  rset_marks = NULL;
  rset_end = 0;
  return freed;
}

/* Each thread's answers name descriptor ids and are trusted for good: the same-epoch answers
 * (same_lookup) for as long as the thread's epoch lasts, which a sweep does not end, and the
 * first-touch path's facts and memo (qfact, qnext_fill) for ever, since they take a
 * descriptor's facts as immutable. Every id they name stays marked, so none of them is given
 * back and reused while a table can still name it (the tables are small: 8 + 256 + 128
 * entries per thread). */
typedef struct answers {
  const typeof(same_tls[0]) *same;
  const qfact_t *facts;
  const qmemo_t (*memo)[2];
} answers_t;
static __thread answers_t my_answers __attribute__((tls_model("initial-exec")));

const void *hrace__shadow_thread_answers(void) {
  my_answers = (answers_t){ same_tls, qfacts, (const qmemo_t (*)[2])qmemo };
  return &my_answers;
}

static void mark_plain(uint64_t v) {
  if (v != ~0ull && !(v & PTR)) mark_cell(v);
}
void hrace__shadow_mark_word(uint64_t v) { mark_plain(v); }

void hrace__shadow_mark_answers(const void *answers) {
  const answers_t *a = answers;
  for (unsigned i = 0; i < sizeof same_tls / sizeof same_tls[0]; i++) hrace__access_mark(a->same[i].id);
  for (unsigned i = 0; i < NQFACT; i++)
    if (a->facts[i].id) hrace__access_mark(a->facts[i].id);
  for (unsigned i = 0; i < NQMEMO; i++)
    for (unsigned j = 0; j < 2; j++) {
      const qmemo_t *m = &a->memo[i][j];
      if (!m->id) continue;
      hrace__access_mark(m->id);
      mark_plain(m->v);
      mark_plain(m->next);
    }
}
