/* In-flight origin buffers (see buffers.h). Registration of buffers at issue and their
 * release at local completion arrive with issue 3; until then no buffer range is tracked and
 * this entry point is never reached. */
#include "rma/buffers.h"

void hrace__buffer_access(void *owner, uintptr_t addr, uintptr_t len, uint16_t flags, uint16_t op,
                          uint32_t atomic_class, uintptr_t pc) {}
