/* Code address -> function, file, line, resolved with libdw (dwfl over this process's modules).
 * Results are cached per address and live for the life of the process. Thread-safe. */
#ifndef HRACE_REPORT_SYMBOLIZE_H
#define HRACE_REPORT_SYMBOLIZE_H
#include <stdbool.h>
#include <stdint.h>

typedef struct hrace_srcloc {
  const char *func;   /* "main", "??" when unknown; never NULL */
  const char *file;   /* full path as recorded in DWARF, or the module path; never NULL */
  int line;           /* 0 when unknown */
} hrace_srcloc_t;

/* `ret` is a return address (as from __builtin_return_address(0)): the symbolizer looks up
 * ret - 1 so that the call instruction's line is reported. Returns false (and fills "??")
 * when nothing is known about the address. */
bool hrace__symbolize(uintptr_t ret, hrace_srcloc_t *out);
/* Forget the module list (after dlopen); the next lookup re-reads /proc/self/maps. */
void hrace__symbolize_refresh(void);
#endif
