/* The distinct predecessors one access was found racing with, and the bytes where each met:
 * a check over many bytes or granules reports each predecessor once. Used by the window shadow
 * (shadow.c) and the history of plain memory (access/history.c). */
#ifndef HRACE_CLOCKS_FOUND_H
#define HRACE_CLOCKS_FOUND_H
#include <stdint.h>
#include "clocks/access.h"

typedef struct hrace_found {
  unsigned n;
  struct { hrace_aid_t prev; uint64_t lo, hi; } f[16];
} hrace_found_t;

static inline void hrace__found_note(hrace_found_t *fd, hrace_aid_t prev, uint64_t lo, uint64_t hi) {
  for (unsigned i = 0; i < fd->n; i++)
    if (fd->f[i].prev == prev) {
      if (lo < fd->f[i].lo) fd->f[i].lo = lo;
      if (hi > fd->f[i].hi) fd->f[i].hi = hi;
      return;
    }
  if (fd->n < sizeof fd->f / sizeof fd->f[0]) {
    fd->f[fd->n].prev = prev;
    fd->f[fd->n].lo = lo;
    fd->f[fd->n].hi = hi;
    fd->n++;
  }
}
#endif
