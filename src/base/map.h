/* The one hash map of hrace's cold tables (docs/design.md, "Layers": base/): communicators,
 * request states and watches, the application's pthread objects, OpenMP objects, interned
 * strings and sites, races seen, symbolizer caches.
 *
 * Open addressing with linear probing over a power-of-two array of (key, value) slots. Keys are
 * 64-bit words: a handle or an address (hrace_map_get / put / del: one value per key), or the
 * hash of a composite key (hrace_map_find / add: several values may share a hash and an `eq`
 * callback tells them apart). Slots are placed by hrace_hash_mix64(key), so keys need not be
 * well spread. Values are non-NULL pointers (NULL marks an empty slot).
 *
 * Policy: deletion leaves a tombstone (probe chains stay intact and entries never move, so
 * deleting during iteration is safe: hrace_map_next visits every entry live when iteration
 * began and not deleted before it was reached, exactly once). An insertion that would fill more
 * than half of the slots with entries and tombstones rehashes first, into the smallest power of
 * two (at least 16) that leaves the live entries at most a quarter full: the table grows while
 * entries accumulate, and is cleaned (and shrinks, once most entries are gone) when tombstones
 * do. Inserting during iteration
 * is not allowed (it may rehash). Lookups are inline and never allocate.
 *
 * Not thread-safe: every user holds its own lock (or is single-threaded by construction). */
#ifndef HRACE_BASE_MAP_H
#define HRACE_BASE_MAP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/hash.h"

typedef struct hrace_map_slot {
  uint64_t key;
  void *val;                     /* NULL: empty; HRACE_MAP_TOMB: deleted */
} hrace_map_slot_t;

typedef struct hrace_map {
  hrace_map_slot_t *slot;
  size_t cap;                    /* 0 or a power of two */
  size_t used;                   /* live entries + tombstones */
  size_t live;
} hrace_map_t;

#define HRACE_MAP_INIT { NULL, 0, 0, 0 }
extern char hrace__map_tomb;
#define HRACE_MAP_TOMB ((void *)&hrace__map_tomb)

/* The value stored under key, or NULL. */
static inline void *hrace_map_get(const hrace_map_t *m, uint64_t key) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = hrace_hash_mix64(key) & mask, n = 0; n < m->cap; i = (i + 1) & mask, n++) {
    void *v = m->slot[i].val;
    if (!v) return NULL;
    if (v != HRACE_MAP_TOMB && m->slot[i].key == key) return v;
  }
  return NULL;
}
/* Store val (non-NULL) under key, replacing what was there; returns the replaced value or NULL. */
void *hrace_map_put(hrace_map_t *m, uint64_t key, void *val);
/* Remove key's value; returns it, or NULL when there was none. */
void *hrace_map_del(hrace_map_t *m, uint64_t key);

/* Composite keys: the first value stored under `hash` for which eq(value, arg) holds, or NULL. */
void *hrace_map_find(const hrace_map_t *m, uint64_t hash,
                     bool (*eq)(const void *val, const void *arg), const void *arg);
/* Store val under `hash` beside any others (the caller knows no equal one is there). */
void hrace_map_add(hrace_map_t *m, uint64_t hash, void *val);
/* Remove the entry holding exactly val under `hash`; returns whether there was one. */
bool hrace_map_remove(hrace_map_t *m, uint64_t hash, const void *val);

/* Iteration: size_t it = 0; while (hrace_map_next(m, &it, &key, &val)) ... (key may be NULL). */
bool hrace_map_next(const hrace_map_t *m, size_t *it, uint64_t *key, void **val);
static inline size_t hrace_map_count(const hrace_map_t *m) { return m->live; }
/* Free the slots (not the values); the map is empty and reusable. */
void hrace_map_free(hrace_map_t *m);
#endif
