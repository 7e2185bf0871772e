/* Tool-internal messages (not race reports): notes, warnings, fatal errors, debug trace.
 * All go to stderr prefixed with "hrace: rank R:"; fatal exits with status 2. */
#ifndef HRACE_BASE_LOG_H
#define HRACE_BASE_LOG_H
#include "base/options.h"

void hrace__log_set_rank(int rank);
void hrace__note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* verbosity >= 1 */
void hrace__debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* verbosity >= 2 */
void hrace__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void hrace__fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
