/* The access layer's side of short call stacks (stack.h): the calling thread's shadow stack,
 * pushed and popped by __tsan_func_entry / __tsan_func_exit (thread.h), interned in core's
 * stack table (core/stack.h). Captured when a new access descriptor is made (once per code
 * address and segment), and at MPI calls that name their caller chain (RMA operations, sends).
 *
 * Interning a chain (hash, index probe, compare) costs ~150 instructions; a loop that calls
 * MPI_Get or MPI_Send from one place asks for the same chain every time. So each thread keeps
 * its last chains by code address, and a capture whose shadow stack still holds the same
 * return addresses takes the id with a compare of at most HRACE_STACK_FRAMES - 1 words. Ids are
 * never reused (core/stack.h): an entry stays right for the life of the thread. */
#include "access/stack.h"

#include "access/thread.h"
#include "base/compiler.h"
#include "core/hooks.h"

#define LAST 4
static __thread struct last {
  uintptr_t pc;
  unsigned depth;
  uint32_t id;
  uintptr_t ret[HRACE_STACK_FRAMES - 1];
} last[LAST] __attribute__((tls_model("initial-exec")));

static HRACE_COLD uint32_t capture_slow(struct last *e, uintptr_t pc, unsigned d, unsigned k) {
  const hrace_athread_t *t = &hrace__at;
  uintptr_t f[HRACE_STACK_FRAMES];
  unsigned n = 0;
  f[n++] = pc;
  for (unsigned i = 0; i < k; i++) f[n++] = t->frames[(d - 1 - i) % HRACE_SSTACK];
  uint32_t id = hrace__stack_intern(f, n);
  if (id) {
    e->pc = pc, e->depth = d, e->id = id;
    for (unsigned i = 0; i < k; i++) e->ret[i] = f[i + 1];
  }
  return id;
}

uint32_t hrace__stack_capture_at(uintptr_t pc) {
  const hrace_athread_t *t = &hrace__at;
  unsigned d = t->depth, k = d < HRACE_STACK_FRAMES - 1 ? d : HRACE_STACK_FRAMES - 1;
  _Static_assert(HRACE_STACK_FRAMES - 1 <= HRACE_SSTACK, "a chain never outgrows the ring");
  if (HRACE_UNLIKELY(!pc)) {                 /* no first frame: the shadow stack alone */
    uintptr_t f[HRACE_STACK_FRAMES];
    unsigned n = 0;
    for (unsigned i = 1; n < HRACE_STACK_FRAMES && i <= d && i <= HRACE_SSTACK; i++)
      f[n++] = t->frames[(d - i) % HRACE_SSTACK];
    return n ? hrace__stack_intern(f, n) : 0;
  }
  struct last *e = &last[(pc ^ pc >> 4 ^ pc >> 9) & (LAST - 1)];
  if (HRACE_LIKELY(e->pc == pc && e->depth == d)) {
    unsigned i = 0;
    while (i < k && e->ret[i] == t->frames[(d - 1 - i) % HRACE_SSTACK]) i++;
    if (HRACE_LIKELY(i == k)) return e->id;
  }
  return capture_slow(e, pc, d, k);
}

uint32_t hrace__stack_capture(void) { return hrace__stack_capture_at(hrace__at.access_pc); }

/* core/hooks.h's hook: core makes descriptors and asks for their stacks through it. */
__attribute__((constructor)) static void register_capture(void) {
  hrace__stack_capture_hook = hrace__stack_capture_at;
}
