/* Append-only chunked table (see table.h). */
#include "clocks/table.h"

#include <stdlib.h>
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

uint32_t hrace__table_alloc(hrace_table_t *t) {
  uint32_t id = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
  if (id >> HRACE_TABLE_CHUNK_BITS >= HRACE_TABLE_DIR_SIZE) abort();  /* see docs/design.md */
  chunk(t, id >> HRACE_TABLE_CHUNK_BITS);
  return id;
}
