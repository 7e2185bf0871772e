/* Short call stacks for reports: a process-wide table that interns the innermost frames of a
 * call stack as a 32-bit id, which access descriptors carry (clocks/access.h, `stack`). The
 * stacks themselves come from the access layer's shadow stack (access/stack.h), through
 * hrace__stack_capture_hook (core/hooks.h).
 *
 * A stack is the access's own code address followed by the return addresses of the calls
 * that led to it, innermost first, HRACE_STACK_FRAMES at most: what the symbolizer needs
 * (it looks each one up at address - 1). Ids are never reused; 0 means "no stack". */
#ifndef HRACE_CORE_STACK_H
#define HRACE_CORE_STACK_H
#include <stdint.h>

#define HRACE_STACK_FRAMES 8

/* The id of stack pcs[0..n) (n <= HRACE_STACK_FRAMES), interned on first sight; 0 when the
 * index is too crowded around its hash. Thread-safe, lock-free. */
uint32_t hrace__stack_intern(const uintptr_t *pcs, unsigned n);
/* The frames of stack `id` (innermost first) through *pcs; returns their number (0 for id 0
 * or an unknown id). The frames live as long as the process. */
unsigned hrace__stack_get(uint32_t id, const uintptr_t **pcs);
#endif
