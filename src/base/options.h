/* hrace runtime options: one X-macro list (include/hrace_options.inc) gives the struct,
 * the defaults, the HRACE_OPTIONS parser and the help text. */
#ifndef HRACE_BASE_OPTIONS_H
#define HRACE_BASE_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>

typedef struct hrace_options {
#define HRACE_OPTION_bool(name) bool name;
#define HRACE_OPTION_int(name) long name;
#define HRACE_OPTION_str(name) const char *name;
#define HRACE_OPTION(type, name, def, doc) HRACE_OPTION_##type(name)
#include "hrace_options.inc"
#undef HRACE_OPTION
#undef HRACE_OPTION_bool
#undef HRACE_OPTION_int
#undef HRACE_OPTION_str
} hrace_options_t;

extern hrace_options_t hrace__opt;

/* Reset to defaults, then parse `spec` (may be NULL). On error returns false and writes a
 * message naming the offending item into err (e.g. "unknown option 'foo'",
 * "option 'verbosity' wants an integer, got 'x'"). Strings in the result are owned by the
 * options module and stay valid for the life of the process. */
bool hrace__options_parse(const char *spec, hrace_options_t *out, char *err, size_t errlen);
/* Write the help text (one line per option: name, type, default, doc) to `f` (a FILE *). */
void hrace__options_help(void *f);
/* Parse getenv("HRACE_OPTIONS") into hrace__opt. On a malformed value: print
 * "hrace: error: HRACE_OPTIONS: <message>" and exit(2) (before the program runs).
 * With help=1: print the help and exit(0). Idempotent; cheap after the first call. */
void hrace__options_init(void);
#endif
