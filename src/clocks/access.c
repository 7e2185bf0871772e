/* Access descriptors, stored in an append-only table (see access.h). */
#include "clocks/access.h"
#include "clocks/table.h"

static hrace_table_t descriptors = HRACE_TABLE_INIT(hrace_access_t);

hrace_aid_t hrace__access_new(const hrace_access_t *init) {
  hrace_aid_t id = hrace__table_alloc(&descriptors);
  hrace_access_t *a = hrace__table_at(&descriptors, id);
  a->exporter = init->exporter;
  a->flags = init->flags;
  a->op = init->op;
  a->atomic_class = init->atomic_class;
  a->rank = init->rank;
  a->thread = init->thread;
  a->stack = init->stack;
  a->pc = init->pc;
  a->loc = init->loc;
  a->sync = init->sync;
  /* Release: whoever reads this id from a shadow cell sees the fields above. */
  atomic_store_explicit(&a->clk, atomic_load_explicit(&init->clk, memory_order_relaxed),
                        memory_order_release);
  return id;
}

hrace_access_t *hrace__access_get(hrace_aid_t id) { return hrace__table_at(&descriptors, id); }
