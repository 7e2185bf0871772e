/* Tracked address ranges (see filter.h): the gate, and behind it a sorted array of ranges under
 * a sequence lock. Writers (window creation / free, RMA issue / completion) serialise on a
 * mutex; readers retry while a write is in progress or when one happened under them.
 *
 * Overlapping ranges are allowed (a put from window memory is both). To find every range that
 * meets [a, b) in a sorted-by-lo array, each entry also keeps the largest `hi` of the entries up
 * to it: a binary search finds the last entry with lo < b, and the scan backwards stops at the
 * first entry whose running maximum is <= a. */
#include "access/filter.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

hrace_gate_t hrace__gate;
_Atomic(hrace_page_leaf_t *) hrace__filter_pages[HRACE_FILTER_TOP];

typedef struct ent {
  _Atomic uintptr_t lo, hi, maxhi;
  _Atomic(void *) owner;
  _Atomic int kind;
} ent_t;

typedef struct arr {
  unsigned cap;                 /* fixed for the array's life: readers clamp the count to it */
  ent_t e[];
} arr_t;

_Atomic unsigned hrace__filter_seq;   /* odd while a writer changes the array */
#define seq hrace__filter_seq
hrace_buffer_access_t hrace__buffer_access_hook;
hrace_window_leaving_t hrace__window_leaving_hook;
static _Atomic(arr_t *) cur;
static _Atomic unsigned count;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* A reader's start: wait out a writer, then the sequence number, the array and its count as
 * of it (the caller re-reads seq after its fence and retries when it moved). */
static inline unsigned read_begin(arr_t **ar, unsigned *n) {
  unsigned s0;
  while ((s0 = atomic_load_explicit(&seq, memory_order_acquire)) & 1) cpu_relax();
  *ar = atomic_load_explicit(&cur, memory_order_acquire);
  *n = LD(count);
  if (*ar && *n > (*ar)->cap) *n = (*ar)->cap;
  return s0;
}

unsigned hrace__filter_find(uintptr_t a, size_t len, hrace_range_t *out, unsigned max) {
  if (!len) return 0;
  uintptr_t b = a + len < a ? UINTPTR_MAX : a + len;
  for (;;) {
    arr_t *ar;
    unsigned n, k = 0, s0 = read_begin(&ar, &n);
    if (ar && n) {
      unsigned l = 0, h = n;            /* first entry with lo >= b */
      while (l < h) {
        unsigned m = (l + h) / 2;
        if (LD(ar->e[m].lo) < b) l = m + 1;
        else h = m;
      }
      for (unsigned j = l; j-- > 0;) {
        if (LD(ar->e[j].maxhi) <= a) break;
        uintptr_t hi = LD(ar->e[j].hi);
        if (hi <= a) continue;
        if (k < max)
          out[k] = (hrace_range_t){ LD(ar->e[j].lo), hi, LD(ar->e[j].kind), LD(ar->e[j].owner) };
        k++;
      }
    }
    atomic_thread_fence(memory_order_acquire);
    if (LD(seq) != s0) continue;
    unsigned got = k < max ? k : max;   /* found from the top down: put in address order */
    for (unsigned i = 0; i < got / 2; i++) {
      hrace_range_t t = out[i];
      out[i] = out[got - 1 - i];
      out[got - 1 - i] = t;
    }
    return k;
  }
}

bool hrace__filter_gap(uintptr_t a, uintptr_t *lo, uintptr_t *hi, unsigned *seqp) {
  for (;;) {
    arr_t *ar;
    unsigned n, s0 = read_begin(&ar, &n);
    uintptr_t l = 0, h = UINTPTR_MAX;
    int inside = 0;
    if (ar && n) {
      unsigned x = 0, y = n;            /* first entry with lo > a */
      while (x < y) {
        unsigned m = (x + y) / 2;
        if (LD(ar->e[m].lo) <= a) x = m + 1;
        else y = m;
      }
      if (x < n) h = LD(ar->e[x].lo);
      if (x > 0) {
        l = LD(ar->e[x - 1].maxhi);
        inside = l > a;
      }
    }
    atomic_thread_fence(memory_order_acquire);
    if (LD(seq) != s0) continue;
    *lo = l;
    *hi = h;
    *seqp = s0;
    return !inside;
  }
}

bool hrace__filter_alone(const hrace_range_t *r, uintptr_t a, size_t len, uintptr_t *lo,
                         uintptr_t *hi, unsigned *seqp) {
  uintptr_t b = a + len < a ? UINTPTR_MAX : a + len;
  if (a < r->lo || b > r->hi) return false;
  for (;;) {
    arr_t *ar;
    unsigned n, s0 = read_begin(&ar, &n);
    uintptr_t l = r->lo, h = r->hi;
    int self = 0, ok = 1;
    /* The entries are few (windows, and the buffer regions of operations in flight or lately
     * completed): one pass. Every entry but r itself either ends at or before a (it bounds l),
     * starts at or after b (it bounds h), or meets [a, b) (no answer). */
    for (unsigned j = 0; ar && j < n && ok; j++) {
      uintptr_t elo = LD(ar->e[j].lo), ehi = LD(ar->e[j].hi);
      if (!self && elo == r->lo && ehi == r->hi && LD(ar->e[j].owner) == r->owner &&
          LD(ar->e[j].kind) == r->kind) {
        self = 1;
        continue;
      }
      if (ehi <= a) {
        if (ehi > l) l = ehi;
      } else if (elo >= b) {
        if (elo < h) h = elo;
      } else {
        ok = 0;
      }
    }
    atomic_thread_fence(memory_order_acquire);
    if (LD(seq) != s0) continue;
    if (!self || !ok) return false;
    *lo = l;
    *hi = h;
    *seqp = s0;
    return true;
  }
}

bool hrace__filter_overlaps(uintptr_t a, size_t len) {
  return hrace__filter_maybe_range(a, len) && hrace__filter_find(a, len, NULL, 0) > 0;
}

/* ---- writers (under mu) ---------------------------------------------------------------- */

static void write_begin(void) {
  ST(seq, LD(seq) + 1);
  atomic_thread_fence(memory_order_release);
}
static void write_end(void) { atomic_store_explicit(&seq, LD(seq) + 1, memory_order_release); }

void hrace__filter_touch(void) {
  pthread_mutex_lock(&mu);
  write_begin();
  write_end();
  pthread_mutex_unlock(&mu);
}

/* Running maxima from entry i on. */
static void fix_maxhi(arr_t *ar, unsigned i, unsigned n) {
  uintptr_t m = i ? LD(ar->e[i - 1].maxhi) : 0;
  for (; i < n; i++) {
    if (LD(ar->e[i].hi) > m) m = LD(ar->e[i].hi);
    ST(ar->e[i].maxhi, m);
  }
}

/* ---- the page table (filter.h) ------------------------------------------------------------ */

#define LEAF_WORDS (1u << (HRACE_FILTER_LEAF_BITS - HRACE_FILTER_PAGE_BITS - 6))

/* The pages [p0, p1] (page numbers) an entry [lo, hi) sets: its bytes and the slack before. */
static void range_pages(uintptr_t lo, uintptr_t hi, uintptr_t *p0, uintptr_t *p1) {
  lo = lo > HRACE_FILTER_SLACK ? lo - HRACE_FILTER_SLACK : 0;
  *p0 = lo >> HRACE_FILTER_PAGE_BITS;
  *p1 = (hi - 1) >> HRACE_FILTER_PAGE_BITS;
}

/* The word holding page p's bit; the leaf is made (zeroed, then published) when `make`. */
static _Atomic uint64_t *page_word(uintptr_t p, int make) {
  _Atomic(hrace_page_leaf_t *) *top =
      &hrace__filter_pages[(p >> (HRACE_FILTER_LEAF_BITS - HRACE_FILTER_PAGE_BITS)) &
                           (HRACE_FILTER_TOP - 1)];
  hrace_page_leaf_t *l = LD(*top);
  if (!l) {
    if (!make) return NULL;
    if (!(l = calloc(1, sizeof *l))) abort();
    atomic_store_explicit(top, l, memory_order_release);
  }
  return &l->w[(p >> 6) & (LEAF_WORDS - 1)];
}

/* The bits of pages p .. q (q - p < 64, one word) in their word. */
static uint64_t word_mask(uintptr_t p, uintptr_t q) {
  unsigned a = p & 63, b = q & 63;
  return (b == 63 ? ~0ull : (1ull << (b + 1)) - 1) & ~((1ull << a) - 1);
}

/* Set the bits of [lo, hi)'s pages: before the range enters the array. */
static void pages_set(uintptr_t lo, uintptr_t hi) {
  uintptr_t p0, p1;
  range_pages(lo, hi, &p0, &p1);
  for (uintptr_t p = p0; p <= p1; p = (p | 63) + 1) {
    uintptr_t q = (p | 63) < p1 ? (p | 63) : p1;
    _Atomic uint64_t *w = page_word(p, 1);
    uint64_t m = word_mask(p, q);
    if ((LD(*w) & m) != m) atomic_store_explicit(w, LD(*w) | m, memory_order_release);
    if (q == UINTPTR_MAX >> HRACE_FILTER_PAGE_BITS) break;
  }
}

/* The bits that the ranges ar[0..n) set in word `word` (pages word * 64 .. word * 64 + 63). */
static uint64_t word_keep(uintptr_t word, arr_t *ar, unsigned n) {
  uint64_t keep = 0;
  uintptr_t p = word << 6, q = p | 63;
  for (unsigned i = 0; ar && i < n; i++) {
    uintptr_t s0, s1;
    range_pages(LD(ar->e[i].lo), LD(ar->e[i].hi), &s0, &s1);
    if (s1 < p || s0 > q) continue;
    keep |= word_mask(s0 > p ? s0 : p, s1 < q ? s1 : q);
  }
  return keep;
}

/* After the ranges gone[0..ngone) (lo, hi pairs) left the array (ar[0..n) is what remains):
 * their pages' bits, each word stored once per range with what the remaining entries still set
 * there, so that no bit a remaining range needs is ever clear. What the remaining entries set
 * is found once per word, not per range: a burst of small buffers completing together (64 000
 * puts from distinct buffers in one epoch) lies in a few words, and asking every remaining
 * entry for every gone range cost ~650 instructions per range. */
static void pages_clear(const uintptr_t *gone, unsigned ngone, arr_t *ar, unsigned n) {
  uintptr_t known = UINTPTR_MAX;   /* the word whose keep is `keep` */
  uint64_t keep = 0;
  for (unsigned g = 0; g < ngone; g++) {
    uintptr_t p0, p1;
    range_pages(gone[2 * g], gone[2 * g + 1], &p0, &p1);
    for (uintptr_t p = p0; p <= p1; p = (p | 63) + 1) {
      uintptr_t q = (p | 63) < p1 ? (p | 63) : p1;
      _Atomic uint64_t *w = page_word(p, 0);
      if (!w) continue;
      if (p >> 6 != known) keep = word_keep(known = p >> 6, ar, n);
      uint64_t m = word_mask(p, q), v = (LD(*w) & ~m) | (keep & m);
      if (v != LD(*w)) atomic_store_explicit(w, v, memory_order_release);
      if (q == UINTPTR_MAX >> HRACE_FILTER_PAGE_BITS) break;
    }
  }
}

/* Set the bounds [lo, hi) (slack applied here) in both halves of the gate: two plain stores
 * each, whatever a reader in between sees covers every range live throughout (filter.h); the
 * callbacks' bounds stay everything while the history records. */
static void set_gate(uintptr_t lo, uintptr_t hi) {
  lo = lo > HRACE_FILTER_SLACK ? lo - HRACE_FILTER_SLACK : 0;
  atomic_store_explicit(&hrace__gate.tlo, lo, memory_order_release);
  atomic_store_explicit(&hrace__gate.thi, hi, memory_order_release);
  if (LD(hrace__gate.history)) return;
  atomic_store_explicit(&hrace__gate.lo, lo, memory_order_release);
  atomic_store_explicit(&hrace__gate.hi, hi, memory_order_release);
}

static void publish_gate(arr_t *ar, unsigned n) {
  if (!n) {   /* nothing tracked: an empty [0, 0) */
    atomic_store_explicit(&hrace__gate.thi, 0, memory_order_release);
    atomic_store_explicit(&hrace__gate.tlo, 0, memory_order_release);
    if (LD(hrace__gate.history)) return;
    atomic_store_explicit(&hrace__gate.hi, 0, memory_order_release);
    atomic_store_explicit(&hrace__gate.lo, 0, memory_order_release);
    return;
  }
  set_gate(LD(ar->e[0].lo), LD(ar->e[n - 1].maxhi));
}

void hrace__filter_history_on(void) {
  pthread_mutex_lock(&mu);
  atomic_store_explicit(&hrace__gate.lo, 0, memory_order_release);
  atomic_store_explicit(&hrace__gate.hi, UINTPTR_MAX, memory_order_release);
  atomic_store_explicit(&hrace__gate.history, 1, memory_order_release);
  pthread_mutex_unlock(&mu);
}

void hrace__filter_add(uintptr_t lo, uintptr_t hi, int kind, void *owner) {
  if (hi <= lo) return;
  pthread_mutex_lock(&mu);
  arr_t *ar = LD(cur);
  unsigned n = LD(count);
  if (!ar || n == ar->cap) {
    /* Grow into a new array; the old one stays mapped for readers still scanning it. */
    unsigned ncap = ar ? 2 * ar->cap : 16;
    arr_t *na = calloc(1, sizeof *na + ncap * sizeof na->e[0]);
    if (!na) abort();
    na->cap = ncap;
    for (unsigned i = 0; i < n; i++) {
      ST(na->e[i].lo, LD(ar->e[i].lo));
      ST(na->e[i].hi, LD(ar->e[i].hi));
      ST(na->e[i].maxhi, LD(ar->e[i].maxhi));
      ST(na->e[i].owner, LD(ar->e[i].owner));
      ST(na->e[i].kind, LD(ar->e[i].kind));
    }
    atomic_store_explicit(&cur, na, memory_order_release);
    ar = na;
  }
  /* Widen the gate before the range exists, so no access to it after we return is missed. */
  uintptr_t glo = n ? LD(ar->e[0].lo) : lo, ghi = n ? LD(ar->e[n - 1].maxhi) : hi;
  set_gate(lo < glo ? lo : glo, hi > ghi ? hi : ghi);
  pages_set(lo, hi);

  unsigned at = n;
  while (at > 0 && LD(ar->e[at - 1].lo) > lo) at--;
  write_begin();
  for (unsigned i = n; i > at; i--) {
    ST(ar->e[i].lo, LD(ar->e[i - 1].lo));
    ST(ar->e[i].hi, LD(ar->e[i - 1].hi));
    ST(ar->e[i].owner, LD(ar->e[i - 1].owner));
    ST(ar->e[i].kind, LD(ar->e[i - 1].kind));
  }
  ST(ar->e[at].lo, lo);
  ST(ar->e[at].hi, hi);
  ST(ar->e[at].owner, owner);
  ST(ar->e[at].kind, kind);
  fix_maxhi(ar, at, n + 1);
  ST(count, n + 1);
  write_end();
  pthread_mutex_unlock(&mu);
}

/* Remove, in one pass, every range for which drop(owner, kind, arg) holds. */
static void remove_where(int (*drop)(void *owner, int kind, void *arg), void *arg) {
  pthread_mutex_lock(&mu);
  arr_t *ar = LD(cur);
  unsigned n = ar ? LD(count) : 0, first = n, k;
  for (unsigned i = 0; i < n; i++)
    if (drop(LD(ar->e[i].owner), LD(ar->e[i].kind), arg)) {
      first = i;
      break;
    }
  if (first == n) {
    pthread_mutex_unlock(&mu);
    return;
  }
  /* The dropped entries' spans, for their pages' bits once they are gone. */
  uintptr_t one[2 * 16], *gone = one;
  unsigned ngone = 0;
  if (n - first > 16 && !(gone = malloc(2 * (size_t)(n - first) * sizeof *gone))) abort();
  write_begin();
  k = first;
  for (unsigned i = first; i < n; i++) {
    if (drop(LD(ar->e[i].owner), LD(ar->e[i].kind), arg)) {
      gone[2 * ngone] = LD(ar->e[i].lo);
      gone[2 * ngone++ + 1] = LD(ar->e[i].hi);
      continue;
    }
    ST(ar->e[k].lo, LD(ar->e[i].lo));
    ST(ar->e[k].hi, LD(ar->e[i].hi));
    ST(ar->e[k].owner, LD(ar->e[i].owner));
    ST(ar->e[k].kind, LD(ar->e[i].kind));
    k++;
  }
  fix_maxhi(ar, first, k);
  ST(count, k);
  write_end();
  publish_gate(ar, k);   /* narrow after the ranges are gone */
  pages_clear(gone, ngone, ar, k);
  if (gone != one) free(gone);
  pthread_mutex_unlock(&mu);
}

static int is_owner(void *owner, int kind, void *arg) { return owner == arg; }

void hrace__filter_remove(void *owner) {
  if (hrace__window_leaving_hook) {
    /* The owner's window ranges, copied under the lock, handed to the hook without it (the
     * hook adds ranges). A window has one; more go round again. */
    for (unsigned skip = 0;; skip++) {
      uintptr_t lo = 0, hi = 0;
      unsigned seen = 0;
      pthread_mutex_lock(&mu);
      arr_t *ar = LD(cur);
      unsigned n = ar ? LD(count) : 0;
      for (unsigned i = 0; i < n; i++)
        if (LD(ar->e[i].owner) == owner && LD(ar->e[i].kind) == HRACE_TRACK_WINDOW &&
            seen++ == skip) {
          lo = LD(ar->e[i].lo), hi = LD(ar->e[i].hi);
          break;
        }
      pthread_mutex_unlock(&mu);
      if (seen <= skip) break;
      hrace__window_leaving_hook(lo, hi);
    }
  }
  remove_where(is_owner, owner);
}

typedef struct { int kind; int (*gone)(void *); } gone_arg_t;
static int is_gone(void *owner, int kind, void *arg) {
  const gone_arg_t *g = arg;
  return kind == g->kind && g->gone(owner);
}

void hrace__filter_remove_if(int kind, int (*gone)(void *owner)) {
  gone_arg_t g = { kind, gone };
  remove_where(is_gone, &g);
}
