/* In-flight RMA buffers at the origin (DESIGN "An RMA operation is an interval"): from issue to
 * local completion an operation reads its origin buffer (put, accumulate) or writes it (get,
 * result buffers). While in flight the buffer is a tracked range (filter.h, kind
 * HRACE_TRACK_BUFFER), so loads and stores by any thread of the origin, and other operations
 * using the same memory, are checked against it. */
#ifndef HRACE_RMA_BUFFERS_H
#define HRACE_RMA_BUFFERS_H
#include <stdint.h>

/* Called from the access slow path for [addr, addr+len) inside a tracked buffer range whose
 * owner is `owner` (flags: HRACE_ACC_*, op: hrace_op label, pc: the access's return address). */
void hrace__buffer_access(void *owner, uintptr_t addr, uintptr_t len, uint16_t flags, uint16_t op,
                          uint32_t atomic_class, uintptr_t pc);
#endif
