/* The hooks of hooks.h: set by the floors above core/ from their constructors. */
#include "core/hooks.h"

uint32_t (*hrace__stack_capture_hook)(uintptr_t pc);
_Atomic int hrace__fwd_pending;
void (*hrace__fwd_flush_hook)(int acked);
void (*hrace__segment_label_hook)(const hrace_shadow_t *cells, hrace_segment_label_t *out);
void (*hrace__progress_hook)(int up);
