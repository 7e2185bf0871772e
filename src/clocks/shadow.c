/* Shadow cells and the race check (see shadow.h for the encoding). */
#include "clocks/shadow.h"
#include "clocks/table.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* Read sets are immutable once published: a change allocates a new one, so a cell is always
 * replaced by one CAS. They are small and rare (only truly concurrent readers need them). */
typedef struct rset {
  uint32_t n;
  hrace_aid_t m[HRACE_RSET_MAX];
} rset_t;

static hrace_table_t rsets = HRACE_TABLE_INIT(rset_t);

#define RSET_BIT 0x80000000u
#define CELL(w, r) (((uint64_t)(w) << 32) | (uint32_t)(r))
#define CELL_W(c) ((hrace_aid_t)((c) >> 32))
#define CELL_R(c) ((uint32_t)(c))

int hrace__shadow_init(hrace_shadow_t *sh, uint64_t size) {
  sh->size = size;
  sh->cells = NULL;
  if (!size) return 0;
  void *m = mmap(NULL, size * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return -1;
  sh->cells = m;
  return 0;
}

void hrace__shadow_free(hrace_shadow_t *sh) {
  if (sh->cells) munmap((void *)sh->cells, sh->size * sizeof(uint64_t));
  sh->cells = NULL;
  sh->size = 0;
}

void hrace__shadow_clear(hrace_shadow_t *sh, uint64_t off, uint64_t len) {
  if (off >= sh->size) return;
  if (len > sh->size - off) len = sh->size - off;
  for (uint64_t i = 0; i < len; i++) atomic_store_explicit(&sh->cells[off + i], 0, memory_order_relaxed);
}

/* The distinct predecessors found racing during one access, with the bytes where each met. */
typedef struct found {
  unsigned n;
  struct { hrace_aid_t prev; uint64_t lo, hi; } f[16];
} found_t;

static void note(found_t *fd, hrace_aid_t prev, uint64_t at) {
  for (unsigned i = 0; i < fd->n; i++)
    if (fd->f[i].prev == prev) {
      if (at < fd->f[i].lo) fd->f[i].lo = at;
      if (at + 1 > fd->f[i].hi) fd->f[i].hi = at + 1;
      return;
    }
  if (fd->n < sizeof fd->f / sizeof fd->f[0]) {
    fd->f[fd->n].prev = prev;
    fd->f[fd->n].lo = at;
    fd->f[fd->n].hi = at + 1;
    fd->n++;
  }
}

/* Does recorded access `prev` race with the access `now` seen from `view`? */
static int races(hrace_aid_t prev, hrace_aid_t now_id, const hrace_access_t *now, const hrace_vc_t *view) {
  if (!prev || prev == now_id) return 0;
  const hrace_access_t *p = hrace__access_get(prev);
  return hrace__access_conflict(p, now) && !hrace__access_hb(p, view);
}

/* The readers recorded in r, as a list. */
static unsigned readers(uint32_t r, hrace_aid_t out[HRACE_RSET_MAX]) {
  if (!r) return 0;
  if (!(r & RSET_BIT)) { out[0] = r; return 1; }
  const rset_t *s = hrace__table_at(&rsets, r & ~RSET_BIT);
  memcpy(out, s->m, s->n * sizeof *out);
  return s->n;
}

/* The read state after `id` (seen from `view`) reads: drop readers ordered before it, add it. */
static uint32_t add_reader(uint32_t r, hrace_aid_t id, const hrace_vc_t *view) {
  hrace_aid_t old[HRACE_RSET_MAX], keep[HRACE_RSET_MAX];
  unsigned n = readers(r, old), k = 0;
  for (unsigned i = 0; i < n; i++)
    if (old[i] != id && !hrace__access_hb(hrace__access_get(old[i]), view)) keep[k++] = old[i];
  if (k == 0) return id;
  if (k == HRACE_RSET_MAX) {        /* full: forget the oldest concurrent reader */
    memmove(keep, keep + 1, (k - 1) * sizeof *keep);
    k--;
  }
  keep[k++] = id;
  uint32_t sid = hrace__table_alloc(&rsets);
  rset_t *s = hrace__table_at(&rsets, sid);
  memcpy(s->m, keep, k * sizeof *keep);
  s->n = k;
  return sid | RSET_BIT;   /* published by the caller's CAS (release) */
}

static int has_reader(uint32_t r, hrace_aid_t id) {
  hrace_aid_t m[HRACE_RSET_MAX];
  unsigned n = readers(r, m);
  for (unsigned i = 0; i < n; i++)
    if (m[i] == id) return 1;
  return 0;
}

void hrace__shadow_access(hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id,
                          const hrace_vc_t *view, hrace_race_sink_t sink, void *ctx) {
  if (off >= sh->size) return;
  if (len > sh->size - off) len = sh->size - off;
  const hrace_access_t *now = hrace__access_get(id);
  const int writes = (now->flags & HRACE_ACC_WRITE) != 0;
  found_t fd = {0};
  for (uint64_t i = off; i < off + len; i++) {
    _Atomic uint64_t *cell = &sh->cells[i];
    uint64_t old = atomic_load_explicit(cell, memory_order_acquire), neu;
    for (;;) {
      hrace_aid_t w = CELL_W(old);
      uint32_t r = CELL_R(old);
      found_t here = {0};
      if (writes) {
        if (w == id && r == 0) goto next;            /* nothing new since our own write */
        if (races(w, id, now, view)) note(&here, w, i);
        hrace_aid_t m[HRACE_RSET_MAX];
        unsigned n = readers(r, m);
        for (unsigned k = 0; k < n; k++)
          if (races(m[k], id, now, view)) note(&here, m[k], i);
        neu = CELL(id, 0);
      } else {
        if (has_reader(r, id)) goto next;            /* already recorded, no write since */
        if (races(w, id, now, view)) note(&here, w, i);
        neu = CELL(w, add_reader(r, id, view));
      }
      if (atomic_compare_exchange_weak_explicit(cell, &old, neu, memory_order_acq_rel,
                                                memory_order_acquire)) {
        for (unsigned k = 0; k < here.n; k++) note(&fd, here.f[k].prev, i);
        break;
      }
    }
  next:;
  }
  for (unsigned k = 0; k < fd.n; k++) sink(ctx, id, fd.f[k].prev, fd.f[k].lo, fd.f[k].hi - fd.f[k].lo);
}
