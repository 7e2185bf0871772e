/* Short call stacks for reports: a shadow stack per thread, pushed and popped by the
 * instrumentation's __tsan_func_entry / __tsan_func_exit (thread.h), and a process-wide table
 * that interns the innermost frames of one such stack as a 32-bit id, which access
 * descriptors carry (clocks/access.h, `stack`).
 *
 * A stack is the access's own code address followed by the return addresses of the calls
 * that led to it, innermost first, HRACE_STACK_FRAMES at most: what the symbolizer needs
 * (it looks each one up at address - 1). Ids are never reused; 0 means "no stack". */
#ifndef HRACE_ACCESS_STACK_H
#define HRACE_ACCESS_STACK_H
#include <stdint.h>

#define HRACE_STACK_FRAMES 8

/* Intern the calling thread's current stack, with the code address of the access being
 * handled (set by the access entry points) as its first frame; 0 if none is known. */
uint32_t hrace__stack_capture(void);
/* The same with an explicit first frame (pc: a return address into the code that made the
 * access or the call, e.g. an MPI call's caller). */
uint32_t hrace__stack_capture_at(uintptr_t pc);
/* The frames of stack `id` (innermost first) through *pcs; returns their number (0 for id 0
 * or an unknown id). The frames live as long as the process. */
unsigned hrace__stack_get(uint32_t id, const uintptr_t **pcs);
#endif
