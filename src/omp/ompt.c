/* The OMPT tool: libomp finds ompt_start_tool in this library (through OMP_TOOL_LIBRARIES or
 * the preload alone). Today it registers thread begin so that every OpenMP thread has its
 * hrace thread state before its first access; the per-thread clocks of fork / join / barrier /
 * locks / tasks arrive with issue 7. */
#include <omp-tools.h>
#include <stddef.h>

#include "core/runtime.h"

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data) { hrace__thread(); }

static int tool_init(ompt_function_lookup_t lookup, int initial_device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (set) set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  return 1;   /* keep the tool active */
}

static void tool_fini(ompt_data_t *data) {}

HRACE_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  static ompt_start_tool_result_t result = { tool_init, tool_fini, { 0 } };
  return &result;
}
