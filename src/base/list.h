/* The one intrusive list of hrace (docs/design.md, "Layers": base/): a circular doubly-linked
 * list whose links live inside the elements, so insertion and removal never allocate and an
 * element removes itself in O(1) without knowing its list. The head is a hrace_list_t of its
 * own; an element's link is empty (points to itself) when it is on no list. Not thread-safe. */
#ifndef HRACE_BASE_LIST_H
#define HRACE_BASE_LIST_H
#include <stdbool.h>
#include "base/compiler.h"

typedef struct hrace_list {
  struct hrace_list *prev, *next;
} hrace_list_t;

#define HRACE_LIST_INIT(head) { &(head), &(head) }
static inline void hrace_list_init(hrace_list_t *l) { l->prev = l->next = l; }
static inline bool hrace_list_empty(const hrace_list_t *head) { return head->next == head; }

static inline void hrace__list_link(hrace_list_t *n, hrace_list_t *prev, hrace_list_t *next) {
  n->prev = prev;
  n->next = next;
  prev->next = n;
  next->prev = n;
}
static inline void hrace_list_push_front(hrace_list_t *head, hrace_list_t *n) {
  hrace__list_link(n, head, head->next);
}
static inline void hrace_list_push_back(hrace_list_t *head, hrace_list_t *n) {
  hrace__list_link(n, head->prev, head);
}
/* Take n off its list (n then links to itself; removing it again is harmless). */
static inline void hrace_list_remove(hrace_list_t *n) {
  n->prev->next = n->next;
  n->next->prev = n->prev;
  n->prev = n->next = n;
}

/* The element holding link `l` (member m of type). */
#define hrace_list_entry(l, type, m) HRACE_CONTAINER_OF(l, type, m)
/* Visit each link of head, front to back; the current one may be removed (or freed). */
#define hrace_list_for_each(it, tmp, head) \
  for (hrace_list_t *it = (head)->next, *tmp = it->next; it != (head); it = tmp, tmp = it->next)
#endif
