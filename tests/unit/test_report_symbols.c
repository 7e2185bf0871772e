/* What reports resolve beyond file:line: the frames of a code address inside inlined code
 * (innermost first, each marked inlined into the next, with the call sites' lines), and
 * global / static variables by data address from the ELF symbol table. */
#include <stdint.h>
#include <stdlib.h>

#include "report/symbolize.h"
#include "tap.h"

int global_counts[10];
static double static_table[4] = { 1, 2, 3, 4 };

static __attribute__((noinline)) uintptr_t return_address(void) {
  uintptr_t r = (uintptr_t)__builtin_return_address(0);
  __asm__ volatile("" ::: "memory");
  return r;
}

static int inner_line, outer_line, call_line;
static inline __attribute__((always_inline)) uintptr_t inner(void) {
  inner_line = __LINE__; return return_address();
}
static inline __attribute__((always_inline)) uintptr_t outer(void) {
  outer_line = __LINE__; return inner();
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int main(void) {
  plan(18);
  hrace_frame_t f[HRACE_INLINE_MAX];

  call_line = __LINE__; uintptr_t ret = outer();
  unsigned n = hrace__symbolize_frames(ret, f, HRACE_INLINE_MAX);
  is_int(3, n, "three frames: inner, outer (both inlined), main");
  if (n == 3) {
    is_string("inner", f[0].loc.func, "frame 0 function");
    is_int(inner_line, f[0].loc.line, "frame 0 line: the call inside inner");
    ok(f[0].inlined, "frame 0 inlined");
    is_string("outer", f[1].loc.func, "frame 1 function");
    is_int(outer_line, f[1].loc.line, "frame 1 line: where outer calls inner");
    ok(f[1].inlined, "frame 1 inlined");
    is_string("main", f[2].loc.func, "frame 2 function");
    is_int(call_line, f[2].loc.line, "frame 2 line: where main calls outer");
    ok(!f[2].inlined && ends_with(f[2].loc.file, "/test_report_symbols.c"),
       "frame 2 is main's own code, in this file (%s)", f[2].loc.file);
  } else {
    for (int i = 0; i < 9; i++) ok(false, "frames missing");
  }
  hrace_srcloc_t loc;
  hrace__symbolize(ret, &loc);
  ok(loc.func == f[0].loc.func && loc.line == f[0].loc.line, "hrace__symbolize gives frame 0");
  is_int(2, hrace__symbolize_frames(ret, f, 2), "max frames respected");

  hrace_datasym_t d;
  ok(hrace__symbolize_data((uintptr_t)&global_counts[3] + 1, &d), "global array found");
  is_string("global_counts", d.name, "global's name");
  ok(d.offset == 3 * sizeof(int) + 1 && d.size == sizeof global_counts, "offset %llu, size %llu",
     (unsigned long long)d.offset, (unsigned long long)d.size);
  ok(hrace__symbolize_data((uintptr_t)&static_table[2], &d) && !strcmp(d.name, "static_table") &&
     d.offset == 16, "static variable found (%s + %llu)", d.name, (unsigned long long)d.offset);
  int *heap = malloc(64);
  int on_stack = 0;
  ok(!hrace__symbolize_data((uintptr_t)heap, &d), "heap memory is no variable");
  ok(!hrace__symbolize_data((uintptr_t)&on_stack, &d), "stack memory is no variable");
  free(heap);
  return tap_done();
}
