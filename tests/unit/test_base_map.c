/* Unit tests of base/map.h: put / get / del by word keys, growth through many insertions,
 * tombstones reused and cleaned, deletion during iteration, keys that all collide (composite
 * keys sharing one hash, told apart by eq), and removal of one value among equal hashes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/map.h"
#include "tap.h"

static void *V(uintptr_t i) { return (void *)(i * 16 + 8); }   /* distinct non-NULL values */

typedef struct { const char *name; int n; } item_t;
static bool same_name(const void *val, const void *arg) {
  return !strcmp(((const item_t *)val)->name, (const char *)arg);
}

int main(void) {
  plan(21);
  hrace_map_t m = HRACE_MAP_INIT;
  ok(hrace_map_get(&m, 1) == NULL, "an empty map finds nothing");
  ok(hrace_map_del(&m, 1) == NULL, "and deletes nothing");

  /* Growth: 10000 keys, spread badly on purpose (multiples of 4096, like aligned addresses). */
  enum { N = 10000 };
  for (uintptr_t i = 0; i < N; i++) hrace_map_put(&m, i << 12, V(i));
  is_int(N, hrace_map_count(&m), "10000 keys inserted");
  int found = 0;
  for (uintptr_t i = 0; i < N; i++) found += hrace_map_get(&m, i << 12) == V(i);
  is_int(N, found, "every key finds its value after growth");
  ok(m.cap >= 4 * N && (m.cap & (m.cap - 1)) == 0, "capacity a power of two, live <= 1/4 (cap %zu)", m.cap);
  ok(hrace_map_get(&m, 3) == NULL, "a key never inserted is absent");
  ok(hrace_map_put(&m, 5 << 12, V(99)) == V(5), "put on a present key returns the old value");
  ok(hrace_map_get(&m, 5 << 12) == V(99), "and replaces it");
  is_int(N, hrace_map_count(&m), "without a new entry");

  /* Deletion during iteration: delete every other entry as it is visited. */
  size_t it = 0, visited = 0, deleted = 0;
  uint64_t k;
  void *v;
  while (hrace_map_next(&m, &it, &k, &v)) {
    visited++;
    if ((k >> 12) % 2 == 0) deleted += hrace_map_del(&m, k) == v;
  }
  is_int(N, visited, "iteration with deletions visits every entry once");
  is_int(N / 2, deleted, "the even keys deleted while visiting");
  is_int(N / 2, hrace_map_count(&m), "half remain");
  int odd = 0, even = 0;
  for (uintptr_t i = 0; i < N; i++) {
    void *g = hrace_map_get(&m, i << 12);
    if (i % 2) odd += g != NULL;
    else even += g != NULL;
  }
  ok(odd == N / 2 && even == 0, "odd keys found through the tombstones, even ones gone");

  /* Tombstones are cleaned: churn one key in and out far more times than there are slots. */
  size_t cap = m.cap;
  for (uintptr_t i = 0; i < 8 * cap; i++) {
    hrace_map_put(&m, (uint64_t)-1 - i, V(i));
    hrace_map_del(&m, (uint64_t)-1 - i);
  }
  ok(m.cap <= cap && m.used * 2 <= m.cap, "churn cleans tombstones, never grows (cap %zu -> %zu)", cap, m.cap);
  is_int(N / 2, hrace_map_count(&m), "and loses nothing");
  hrace_map_free(&m);
  is_int(0, hrace_map_count(&m), "freed: empty");

  /* Collisions: composite keys that all share one hash. */
  hrace_map_t s = HRACE_MAP_INIT;
  item_t items[40];
  char names[40][8];
  for (int i = 0; i < 40; i++) {
    snprintf(names[i], sizeof names[i], "n%d", i);
    items[i] = (item_t){ names[i], i };
    hrace_map_add(&s, 42, &items[i]);
  }
  int right = 0;
  for (int i = 0; i < 40; i++) {
    const item_t *f = hrace_map_find(&s, 42, same_name, names[i]);
    right += f && f->n == i;
  }
  is_int(40, right, "40 values under one hash, each found by eq");
  ok(hrace_map_find(&s, 42, same_name, "n40") == NULL, "an absent one is not");
  ok(hrace_map_find(&s, 43, same_name, "n1") == NULL, "nor one under another hash");
  ok(hrace_map_remove(&s, 42, &items[7]) && !hrace_map_find(&s, 42, same_name, "n7"),
     "remove takes out exactly one value");
  ok(hrace_map_find(&s, 42, same_name, "n8") == &items[8], "the others stay");
  hrace_map_free(&s);
  return tap_done();
}
