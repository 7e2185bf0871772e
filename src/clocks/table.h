/* An append-only table of fixed-size elements addressed by 32-bit ids: a directory of lazily
 * mapped chunks, appended to lock-free. Ids start at 1 (0 means "none") and are never reused. */
#ifndef HRACE_CLOCKS_TABLE_H
#define HRACE_CLOCKS_TABLE_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HRACE_TABLE_CHUNK_BITS 16
#define HRACE_TABLE_DIR_SIZE (1u << 14)   /* 2^30 elements at most */

typedef struct hrace_table {
  size_t elem;                            /* element size in bytes */
  _Atomic uint32_t next;                  /* next id to hand out (starts at 1) */
  _Atomic(char *) dir[HRACE_TABLE_DIR_SIZE];
} hrace_table_t;

#define HRACE_TABLE_INIT(type) { .elem = sizeof(type), .next = 1 }

uint32_t hrace__table_alloc(hrace_table_t *t);   /* zero-filled element */

static inline void *hrace__table_at(hrace_table_t *t, uint32_t id) {
  char *c = atomic_load_explicit(&t->dir[id >> HRACE_TABLE_CHUNK_BITS], memory_order_acquire);
  return c + (size_t)(id & ((1u << HRACE_TABLE_CHUNK_BITS) - 1)) * t->elem;
}
#endif
