/* Tool-internal messages on stderr ("hrace: rank R: note: ..."). Each message is formatted
 * into one buffer and handed to a single write(2), so lines from concurrent threads and ranks
 * sharing a terminal or pipe do not interleave (writes up to PIPE_BUF are atomic on pipes). */
#include "base/log.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int log_rank = -1;

void hrace__log_set_rank(int rank) { atomic_store_explicit(&log_rank, rank, memory_order_relaxed); }

static void log_write(const char *what, const char *fmt, va_list ap) {
  char buf[2048];
  const size_t cap = sizeof buf - 1;   /* room for the final newline */
  int rank = atomic_load_explicit(&log_rank, memory_order_relaxed);
  int n = rank >= 0 ? snprintf(buf, cap, "hrace: rank %d: %s: ", rank, what)
                    : snprintf(buf, cap, "hrace: %s: ", what);
  size_t len = n < 0 ? 0 : (size_t)n;
  if (len < cap) {
    n = vsnprintf(buf + len, cap - len, fmt, ap);
    if (n > 0) len += (size_t)n;
  }
  if (len >= cap) {   /* truncated: say so rather than cut silently */
    len = cap - 1;
    memcpy(buf + len - 3, "...", 3);
  }
  buf[len++] = '\n';
  for (size_t off = 0; off < len;) {
    ssize_t w = write(STDERR_FILENO, buf + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
}

/* One printf-like entry per level; below verbosity `min` it returns before formatting. */
#define LOG_LEVEL(name, min, what)                                                               \
  void name(const char *fmt, ...) {                                                              \
    if (hrace__opt.verbosity < (min)) return;                                                    \
    va_list ap;                                                                                  \
    va_start(ap, fmt);                                                                           \
    log_write(what, fmt, ap);                                                                    \
    va_end(ap);                                                                                  \
  }
LOG_LEVEL(hrace__note, 1, "note")
LOG_LEVEL(hrace__debug, 2, "debug")
LOG_LEVEL(hrace__warn, LONG_MIN, "warning")

/* _exit, not exit: a fatal error means the runtime's own state cannot be trusted, so running
 * atexit handlers (the application's, MPI's, ours) could hang or crash. Race reports are
 * already on disk: report.c writes each JSON line as it is found. */
_Noreturn void hrace__fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_write("error", fmt, ap);
  va_end(ap);
  _exit(2);
}
