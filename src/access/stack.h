/* The calling thread's call stack, from the shadow stack the instrumentation keeps (thread.h),
 * interned in core's stack table (core/stack.h: format, ids, hrace__stack_get). */
#ifndef HRACE_ACCESS_STACK_H
#define HRACE_ACCESS_STACK_H
#include <stdint.h>
#include "core/stack.h"

/* Intern the calling thread's current stack, with the code address of the access being
 * handled (set by the access entry points) as its first frame; 0 if none is known. */
uint32_t hrace__stack_capture(void);
/* The same with an explicit first frame (pc: a return address into the code that made the
 * access or the call, e.g. an MPI call's caller). */
uint32_t hrace__stack_capture_at(uintptr_t pc);
#endif
