/* The access layer's side of short call stacks (stack.h): the calling thread's shadow stack,
 * pushed and popped by __tsan_func_entry / __tsan_func_exit (thread.h), interned in core's
 * stack table (core/stack.h). Capturing happens when a new access descriptor is made (once per
 * code address and segment), never per access. */
#include "access/stack.h"

#include "access/thread.h"
#include "core/hooks.h"

uint32_t hrace__stack_capture_at(uintptr_t pc) {
  const hrace_athread_t *t = &hrace__at;
  uintptr_t f[HRACE_STACK_FRAMES];
  unsigned n = 0, d = t->depth;
  if (pc) f[n++] = pc;
  for (unsigned i = 1; n < HRACE_STACK_FRAMES && i <= d && i <= HRACE_SSTACK; i++)
    f[n++] = t->frames[(d - i) % HRACE_SSTACK];
  return n ? hrace__stack_intern(f, n) : 0;
}

uint32_t hrace__stack_capture(void) { return hrace__stack_capture_at(hrace__at.access_pc); }

/* core/hooks.h's hook: core makes descriptors and asks for their stacks through it. */
__attribute__((constructor)) static void register_capture(void) {
  hrace__stack_capture_hook = hrace__stack_capture_at;
}
