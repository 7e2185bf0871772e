/* The heap as full mode (access/full.h) needs it: malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign and valloc are interposed (glibc's own through its
 * __libc_* names). A block handed out has a new owner: full mode forgets what its shadow
 * recorded there (a freed block reused by another thread is not a race). Blocks allocated by
 * instrumented code while full mode runs are remembered with their size and call site until
 * freed, so that a race report can say "heap block of N bytes from malloc at f.c:12". */
#ifndef HRACE_ACCESS_ALLOC_H
#define HRACE_ACCESS_ALLOC_H
#include <stdbool.h>
#include <stdint.h>

typedef struct hrace_alloc_info {
  const char *label;        /* "malloc at f.c:12 (func)", interned for the process's life */
  uintptr_t base;
  uint64_t size;
} hrace_alloc_info_t;

/* The live block that holds addr, if instrumented code allocated it while full mode ran.
 * Cold: visits every remembered block (for race reports only). */
bool hrace__alloc_find(uintptr_t addr, hrace_alloc_info_t *out);
#endif
