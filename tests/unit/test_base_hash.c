/* Unit tests of base/hash.h and base/list.h: the hash family is deterministic (values may
 * travel between ranks), spreads aligned keys over the low bits, and the intrusive list keeps
 * order through insertion and removal, also of the element being visited. */
#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "base/list.h"
#include "tap.h"

typedef struct node { int v; hrace_list_t link; } node_t;

static int order(hrace_list_t *head, int *out) {
  int n = 0;
  hrace_list_for_each(l, tmp, head) out[n++] = hrace_list_entry(l, node_t, link)->v;
  return n;
}

int main(void) {
  plan(12);
  /* FNV-1a 64 of "a" is a published test vector. */
  ok(hrace_hash_str("a", HRACE_HASH_SEED) == 0xaf63dc4c8601ec8cull, "FNV-1a 64 of \"a\"");
  ok(hrace_hash_bytes("abc", 3, HRACE_HASH_SEED) == hrace_hash_str("abc", HRACE_HASH_SEED),
     "bytes and str agree");
  ok(hrace_hash_mix64(0) == 0 && hrace_hash_mix64(1) != 1, "mix64 is the splitmix64 finaliser");
  /* 4096 page-aligned keys over 64 buckets: no bucket more than 3x the mean. */
  unsigned b[64] = { 0 }, worst = 0;
  for (uint64_t i = 0; i < 4096; i++) b[hrace_hash_mix64(i << 12) & 63]++;
  for (int i = 0; i < 64; i++) worst = b[i] > worst ? b[i] : worst;
  ok(worst <= 3 * 64, "aligned keys spread over the low bits (fullest bucket %u of mean 64)", worst);
  ok(hrace_hash_combine(1, 2) != hrace_hash_combine(2, 1), "combine depends on order");
  short s = -2;
  ok(HRACE_HASH_KEY(s) == 0xfffe, "a 2-byte handle as a key: its bytes, zero-extended");

  hrace_list_t head = HRACE_LIST_INIT(head);
  node_t n[5];
  int got[5];
  ok(hrace_list_empty(&head), "a new list is empty");
  for (int i = 0; i < 5; i++) {
    n[i].v = i;
    if (i % 2) hrace_list_push_back(&head, &n[i].link);
    else hrace_list_push_front(&head, &n[i].link);
  }
  int want[5] = { 4, 2, 0, 1, 3 };
  ok(order(&head, got) == 5 && !memcmp(got, want, sizeof want), "push front / back keep order");
  hrace_list_remove(&n[0].link);
  int want2[4] = { 4, 2, 1, 3 };
  ok(order(&head, got) == 4 && !memcmp(got, want2, sizeof want2), "remove from the middle");
  hrace_list_remove(&n[0].link);
  ok(order(&head, got) == 4, "removing an unlinked element again is harmless");
  hrace_list_for_each(l, tmp, &head) {
    node_t *x = hrace_list_entry(l, node_t, link);
    if (x->v != 1) hrace_list_remove(l);
  }
  ok(order(&head, got) == 1 && got[0] == 1, "removal of the visited element during the walk");
  hrace_list_remove(&n[1].link);
  ok(hrace_list_empty(&head), "empty again");
  return tap_done();
}
