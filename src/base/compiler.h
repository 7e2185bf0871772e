/* Compiler helpers every floor may use: symbol visibility, branch hints, cold paths, the
 * caller's return address. No state, no includes beyond <stdint.h>. */
#ifndef HRACE_BASE_COMPILER_H
#define HRACE_BASE_COMPILER_H
#include <stdint.h>

#define HRACE_EXPORT __attribute__((visibility("default")))
#define HRACE_LIKELY(x) __builtin_expect(!!(x), 1)
#define HRACE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define HRACE_COLD __attribute__((noinline, cold))
#define HRACE_RET_ADDR() ((uintptr_t)__builtin_return_address(0))
/* The struct that holds member `m` at address p (hooks that hand a member to an upper floor). */
#define HRACE_CONTAINER_OF(p, type, m) ((type *)((char *)(p) - __builtin_offsetof(type, m)))
#endif
