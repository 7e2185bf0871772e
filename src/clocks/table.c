/* Chunked table with a free list (see table.h). */
#include "clocks/table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define CHUNK_SIZE (1u << HRACE_TABLE_CHUNK_BITS)

static char *chunk(hrace_table_t *t, uint32_t ci) {
  char *c = atomic_load_explicit(&t->dir[ci], memory_order_acquire);
  if (c) return c;
  /* MAP_NORESERVE: pages cost nothing until an element lands in them. */
  size_t bytes = CHUNK_SIZE * t->elem;
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (m == MAP_FAILED) abort();
  char *expect = NULL;
  if (!atomic_compare_exchange_strong(&t->dir[ci], &expect, (char *)m)) {
    munmap(m, bytes);
    return expect;
  }
  return m;
}

/* The link word of a free element: its first 4 bytes. Atomic, because a pop that lost its race
 * may read it while the winner already reuses the element (the CAS then fails). */
static _Atomic uint32_t *link_of(hrace_table_t *t, uint32_t id) {
  return (_Atomic uint32_t *)hrace__table_at(t, id);
}

uint32_t hrace__table_alloc(hrace_table_t *t) {
  uint64_t h = atomic_load_explicit(&t->free_head, memory_order_acquire);
  while ((uint32_t)h) {
    uint32_t id = (uint32_t)h;
    uint32_t next = atomic_load_explicit(link_of(t, id), memory_order_relaxed);
    uint64_t nh = ((h >> 32) + 1) << 32 | next;
    if (atomic_compare_exchange_weak_explicit(&t->free_head, &h, nh, memory_order_acquire,
                                              memory_order_acquire)) {
      atomic_fetch_sub_explicit(&t->nfree, 1, memory_order_relaxed);
      memset(hrace__table_at(t, id), 0, t->elem);
      return id;
    }
  }
  uint32_t id = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
  if (id >> HRACE_TABLE_CHUNK_BITS >= HRACE_TABLE_DIR_SIZE) abort();  /* see docs/design.md */
  chunk(t, id >> HRACE_TABLE_CHUNK_BITS);
  return id;
}

void hrace__table_free(hrace_table_t *t, uint32_t id) {
  uint64_t h = atomic_load_explicit(&t->free_head, memory_order_relaxed);
  do {
    atomic_store_explicit(link_of(t, id), (uint32_t)h, memory_order_relaxed);
  } while (!atomic_compare_exchange_weak_explicit(&t->free_head, &h, (h & ~0xFFFFFFFFull) | id,
                                                  memory_order_release, memory_order_relaxed));
  atomic_fetch_add_explicit(&t->nfree, 1, memory_order_relaxed);
}

void hrace__table_drop_free(hrace_table_t *t) {
  uint64_t h = atomic_load_explicit(&t->free_head, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(&t->free_head, &h, ((h >> 32) + 1) << 32,
                                                memory_order_acq_rel, memory_order_relaxed)) {
  }
  atomic_store_explicit(&t->nfree, 0, memory_order_relaxed);
}
