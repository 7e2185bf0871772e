/* The hash map (see map.h): insertion, deletion, rehashing, iteration. */
#include "base/map.h"

#include <stdlib.h>

char hrace__map_tomb;

#define MIN_CAP 16

static void place(hrace_map_slot_t *slot, size_t cap, uint64_t key, void *val) {
  size_t mask = cap - 1, i = hrace_hash_mix64(key) & mask;
  while (slot[i].val) i = (i + 1) & mask;
  slot[i] = (hrace_map_slot_t){ key, val };
}

/* Before an insertion: keep entries + tombstones at most half of the slots (map.h, Policy). */
static void reserve(hrace_map_t *m) {
  if ((m->used + 1) * 2 <= m->cap) return;
  size_t cap = MIN_CAP;
  while ((m->live + 1) * 4 > cap) cap *= 2;
  hrace_map_slot_t *slot = calloc(cap, sizeof *slot);
  if (!slot) abort();
  for (size_t i = 0; i < m->cap; i++) {
    void *v = m->slot[i].val;
    if (v && v != HRACE_MAP_TOMB) place(slot, cap, m->slot[i].key, v);
  }
  free(m->slot);
  m->slot = slot;
  m->cap = cap;
  m->used = m->live;
}

/* The slot holding key (val == NULL: any value; else exactly val), or NULL. */
static hrace_map_slot_t *slot_of(const hrace_map_t *m, uint64_t key, const void *val) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = hrace_hash_mix64(key) & mask, n = 0; n < m->cap; i = (i + 1) & mask, n++) {
    void *v = m->slot[i].val;
    if (!v) return NULL;
    if (v != HRACE_MAP_TOMB && m->slot[i].key == key && (!val || v == val)) return &m->slot[i];
  }
  return NULL;
}

static void insert(hrace_map_t *m, uint64_t key, void *val) {
  reserve(m);
  size_t mask = m->cap - 1, i = hrace_hash_mix64(key) & mask;
  while (m->slot[i].val && m->slot[i].val != HRACE_MAP_TOMB) i = (i + 1) & mask;
  if (!m->slot[i].val) m->used++;   /* a reused tombstone was counted already */
  m->slot[i] = (hrace_map_slot_t){ key, val };
  m->live++;
}

static void erase(hrace_map_t *m, hrace_map_slot_t *s) {
  s->val = HRACE_MAP_TOMB;
  m->live--;
}

/* One probe when there is room (a request per message comes through here: mpi/reqtab.c): it
 * finds key's slot or else the first free one of its chain. */
void *hrace_map_put(hrace_map_t *m, uint64_t key, void *val) {
  hrace_map_slot_t *free_slot = NULL;
  if (m->cap) {
    size_t mask = m->cap - 1;
    for (size_t i = hrace_hash_mix64(key) & mask, n = 0; n < m->cap; i = (i + 1) & mask, n++) {
      hrace_map_slot_t *s = &m->slot[i];
      if (s->val == HRACE_MAP_TOMB) {
        if (!free_slot) free_slot = s;
        continue;
      }
      if (!s->val) {
        if (!free_slot) free_slot = s;
        break;
      }
      if (s->key == key) {
        void *old = s->val;
        s->val = val;
        return old;
      }
    }
  }
  if (free_slot && (m->used + 1) * 2 <= m->cap) {
    if (!free_slot->val) m->used++;
    *free_slot = (hrace_map_slot_t){ key, val };
    m->live++;
    return NULL;
  }
  insert(m, key, val);   /* rehashes first */
  return NULL;
}

void *hrace_map_del(hrace_map_t *m, uint64_t key) {
  hrace_map_slot_t *s = slot_of(m, key, NULL);
  if (!s) return NULL;
  void *old = s->val;
  erase(m, s);
  return old;
}

void *hrace_map_find(const hrace_map_t *m, uint64_t hash,
                     bool (*eq)(const void *val, const void *arg), const void *arg) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = hrace_hash_mix64(hash) & mask, n = 0; n < m->cap; i = (i + 1) & mask, n++) {
    void *v = m->slot[i].val;
    if (!v) return NULL;
    if (v != HRACE_MAP_TOMB && m->slot[i].key == hash && eq(v, arg)) return v;
  }
  return NULL;
}

void hrace_map_add(hrace_map_t *m, uint64_t hash, void *val) { insert(m, hash, val); }

bool hrace_map_remove(hrace_map_t *m, uint64_t hash, const void *val) {
  hrace_map_slot_t *s = slot_of(m, hash, val);
  if (!s) return false;
  erase(m, s);
  return true;
}

bool hrace_map_next(const hrace_map_t *m, size_t *it, uint64_t *key, void **val) {
  for (size_t i = *it; i < m->cap; i++) {
    void *v = m->slot[i].val;
    if (v && v != HRACE_MAP_TOMB) {
      if (key) *key = m->slot[i].key;
      *val = v;
      *it = i + 1;
      return true;
    }
  }
  *it = m->cap;
  return false;
}

void hrace_map_free(hrace_map_t *m) {
  free(m->slot);
  *m = (hrace_map_t)HRACE_MAP_INIT;
}
