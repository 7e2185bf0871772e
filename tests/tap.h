/* A minimal TAP producer for hrace's unit tests (after c-tap-harness): plan, ok, and
 * is_* checks that print both sides on failure. The exit status is the number of failures
 * (capped at 255), so CTest and prove both see a failing test. Header-only. */
#ifndef HRACE_TAP_H
#define HRACE_TAP_H
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned;

static inline void plan(int n) { tap_planned = n; printf("1..%d\n", n); fflush(stdout); }

static inline int tap_result(int pass, const char *fmt, va_list ap) {
  ++tap_n;
  printf("%sok %d - ", pass ? "" : "not ", tap_n);
  vprintf(fmt, ap);
  printf("\n");
  if (!pass) ++tap_failed;
  fflush(stdout);
  return pass;
}

static inline int ok(int pass, const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); int r = tap_result(pass, fmt, ap); va_end(ap); return r;
}

static inline int is_int(long long want, long long got, const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); int r = tap_result(want == got, fmt, ap); va_end(ap);
  if (!r) printf("#   wanted: %lld\n#      got: %lld\n", want, got);
  return r;
}

static inline int is_string(const char *want, const char *got, const char *fmt, ...) {
  int same = (want == NULL || got == NULL) ? want == got : strcmp(want, got) == 0;
  va_list ap; va_start(ap, fmt); int r = tap_result(same, fmt, ap); va_end(ap);
  if (!r) printf("#   wanted: %s\n#      got: %s\n", want ? want : "(null)", got ? got : "(null)");
  return r;
}

static inline void diag(const char *fmt, ...) {
  va_list ap; va_start(ap, fmt); printf("# "); vprintf(fmt, ap); printf("\n"); va_end(ap);
}

/* Call at the end of main: `return tap_done();` */
static inline int tap_done(void) {
  if (tap_planned && tap_n != tap_planned) {
    printf("# planned %d tests but ran %d\n", tap_planned, tap_n);
    if (!tap_failed) tap_failed = 1;
  } else if (!tap_planned) {
    printf("1..%d\n", tap_n);
  }
  return tap_failed > 255 ? 255 : tap_failed;
}
#endif
