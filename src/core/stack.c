/* The interned stack table (see stack.h). Stacks live in an append-only table (clocks/table.h);
 * a lock-free open-addressing index of 2^20 ids (4 MiB of address space, touched only where
 * used) finds an existing copy. Interning happens when a new access descriptor is made (once
 * per code address and segment), never per access.
 *
 * The one table of hrace not on base/map.h (issue 20): every application thread interns here
 * after each synchronisation, all at once after an OpenMP barrier, and the map would need a
 * lock. Measured on the 2-core test machine (2M interns of 4096 distinct 8-frame stacks, 1 and
 * 2 threads): 72-77 ns per intern lock-free, 88-102 ns with base/map.h under a mutex. */
#include "core/stack.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include "base/hash.h"
#include "clocks/table.h"

typedef struct sentry {
  uint32_t n, hash;
  uintptr_t pcs[HRACE_STACK_FRAMES];
} sentry_t;

static hrace_table_t entries = HRACE_TABLE_INIT(sentry_t);

#define INDEX_BITS 20
#define INDEX_SIZE (1u << INDEX_BITS)
#define MAX_PROBES 64
static _Atomic(_Atomic uint32_t *) index_;

static _Atomic uint32_t *get_index(void) {
  _Atomic uint32_t *ix = atomic_load_explicit(&index_, memory_order_acquire);
  if (ix) return ix;
  void *m = mmap(NULL, INDEX_SIZE * sizeof *ix, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return NULL;
  _Atomic uint32_t *expect = NULL;
  if (!atomic_compare_exchange_strong(&index_, &expect, (_Atomic uint32_t *)m)) {
    munmap(m, INDEX_SIZE * sizeof *ix);
    return expect;
  }
  return m;
}

static uint32_t hash(const uintptr_t *pcs, unsigned n) {
  uint64_t h = n;
  for (unsigned i = 0; i < n; i++) h = hrace_hash_combine(h, pcs[i]);
  return (uint32_t)(h ^ (h >> 32));
}

static bool same(const sentry_t *e, uint32_t h, const uintptr_t *pcs, unsigned n) {
  return e->hash == h && e->n == n && !memcmp(e->pcs, pcs, n * sizeof *pcs);
}

uint32_t hrace__stack_intern(const uintptr_t *pcs, unsigned n) {
  _Atomic uint32_t *ix = get_index();
  if (!ix) return 0;
  uint32_t h = hash(pcs, n), mine = 0;
  for (unsigned p = 0; p < MAX_PROBES; p++) {
    _Atomic uint32_t *slot = &ix[(h + p) & (INDEX_SIZE - 1)];
    uint32_t id = atomic_load_explicit(slot, memory_order_acquire);
    for (;;) {
      if (id) {
        if (same(hrace__table_at(&entries, id), h, pcs, n)) return id;
        break;                               /* another stack: probe on */
      }
      if (!mine) {                           /* an empty slot: ours, if we get it first */
        mine = hrace__table_alloc(&entries);
        sentry_t *e = hrace__table_at(&entries, mine);
        e->n = n;
        e->hash = h;
        memcpy(e->pcs, pcs, n * sizeof *pcs);
      }
      if (atomic_compare_exchange_strong_explicit(slot, &id, mine, memory_order_acq_rel,
                                                  memory_order_acquire))
        return mine;
      /* lost the slot: id now holds the winner; it may be our stack */
    }
  }
  return 0;   /* index crowded around this hash: no stack rather than a slow search */
}

unsigned hrace__stack_get(uint32_t id, const uintptr_t **pcs) {
  if (!id || id >= atomic_load_explicit(&entries.next, memory_order_acquire)) {
    *pcs = NULL;
    return 0;
  }
  const sentry_t *e = hrace__table_at(&entries, id);
  *pcs = e->pcs;
  return e->n;
}
