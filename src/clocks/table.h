/* A table of fixed-size elements addressed by 32-bit ids: a directory of lazily mapped chunks,
 * appended to lock-free, plus a free list of ids given back (hrace__table_free), which later
 * allocations take first. Ids start at 1 (0 means "none"). Only a caller that knows an id is held
 * nowhere may free it (clocks/access.h, the descriptor sweep). */
#ifndef HRACE_CLOCKS_TABLE_H
#define HRACE_CLOCKS_TABLE_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HRACE_TABLE_CHUNK_BITS 16
#define HRACE_TABLE_DIR_SIZE (1u << 14)   /* 2^30 elements at most */

typedef struct hrace_table {
  size_t elem;                            /* element size in bytes (at least 4) */
  _Atomic uint32_t next;                  /* next id never handed out (starts at 1) */
  /* Free list: a stack of ids linked through the first 4 bytes of their elements; the upper
   * half counts pops, so that a pop racing with a pop and a push of the same id fails its CAS
   * (ABA). */
  _Atomic uint64_t free_head;
  _Atomic uint32_t nfree;
  _Atomic(char *) dir[HRACE_TABLE_DIR_SIZE];
} hrace_table_t;

#define HRACE_TABLE_INIT(type) { .elem = sizeof(type), .next = 1 }

uint32_t hrace__table_alloc(hrace_table_t *t);   /* zero-filled element */
/* Give id back for reuse (its element's contents are lost). */
void hrace__table_free(hrace_table_t *t, uint32_t id);
/* Empty the free list (its ids are then neither free nor handed out: the caller frees them
 * again or keeps them for good). Allocations meanwhile take new ids. */
void hrace__table_drop_free(hrace_table_t *t);
/* One past the highest id handed out so far. */
static inline uint32_t hrace__table_end(hrace_table_t *t) {
  return atomic_load_explicit(&t->next, memory_order_acquire);
}

static inline void *hrace__table_at(hrace_table_t *t, uint32_t id) {
  char *c = atomic_load_explicit(&t->dir[id >> HRACE_TABLE_CHUNK_BITS], memory_order_acquire);
  return c + (size_t)(id & ((1u << HRACE_TABLE_CHUNK_BITS) - 1)) * t->elem;
}
#endif
