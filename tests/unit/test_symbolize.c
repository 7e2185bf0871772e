/* The symbolizer on addresses inside this test: a return address (line of the call, computed
 * with __LINE__), an inlined call site (innermost function name), a function's own address,
 * a libc address without line info, unknown addresses, caching and concurrent use. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "access/stack.h"
#include "base/options.h"
#include "core/race.h"
#include "report/symbolize.h"
#include "tap.h"

void __tsan_func_entry(void *pc);
void __tsan_func_exit(void);

static __attribute__((noinline)) uintptr_t return_address(void) {
  uintptr_t r = (uintptr_t)__builtin_return_address(0);
  __asm__ volatile("" ::: "memory");   /* not a tail call */
  return r;
}

static int inlined_line;
static inline __attribute__((always_inline)) uintptr_t inlined_caller(void) {
  inlined_line = __LINE__; return return_address();
}

static __attribute__((noinline)) int a_local_function(int x) { return x * 3 + 1; }

/* The caller chain of an access made here (not in main, where a chain ends anyway). */
static __attribute__((noinline)) void chain_here(hrace_report_side_t *side) {
  uintptr_t here = return_address();
  hrace__race_side_frames(side, hrace__stack_capture_at(here), here);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static uintptr_t thread_ret;
static void *symbolize_thread(void *arg) {
  hrace_srcloc_t loc;
  bool *good = arg;
  for (int i = 0; i < 200; i++) {
    hrace__symbolize(thread_ret, &loc);
    if (strcmp(loc.func, "main") != 0) *good = false;
    if (i % 50 == 0) hrace__symbolize_refresh();
  }
  return NULL;
}

int main(void) {
  plan(37);
  hrace_srcloc_t loc;

  /* A return address: the call's line, in main, in this file. */
  uintptr_t ret = return_address(); int line = __LINE__;
  ok(hrace__symbolize(ret, &loc), "return address is known");
  is_string("main", loc.func, "function of the return address");
  ok(ends_with(loc.file, "/test_symbolize.c"), "file ends with test_symbolize.c (%s)", loc.file);
  is_int(line, loc.line, "line of the call");
  ok(loc.file[0] == '/', "file is an absolute path");

  /* Cached: same answer, same interned strings. */
  hrace_srcloc_t again;
  hrace__symbolize(ret, &again);
  ok(again.func == loc.func && again.file == loc.file && again.line == loc.line,
     "second lookup returns the cached strings");

  /* A call inside an inlined function: the innermost (inlined) function is named. */
  ret = inlined_caller();
  ok(hrace__symbolize(ret, &loc), "inlined call site is known");
  is_string("inlined_caller", loc.func, "innermost inlined function");
  is_int(inlined_line, loc.line, "line inside the inlined function");

  /* A function's own entry (+1 because the symbolizer looks up ret - 1). */
  uintptr_t fn = (uintptr_t)&a_local_function;
  ok(a_local_function(1) == 4, "a_local_function runs");
  ok(hrace__symbolize(fn + 1, &loc), "function entry is known");
  is_string("a_local_function", loc.func, "function name at its entry");
  ok(ends_with(loc.file, "/test_symbolize.c") && loc.line > 0, "entry has file:line (%s:%d)",
     loc.file, loc.line);

  /* libc: a symbol name at least, and the module path when there is no line info. */
  uintptr_t w = (uintptr_t)dlsym(RTLD_DEFAULT, "write");
  ok(hrace__symbolize(w + 1, &loc), "libc address is known");
  ok(strcmp(loc.func, "??") != 0, "libc function has a name (%s)", loc.func);
  ok(strcmp(loc.file, "??") != 0, "libc address has a source or module path: %s:%d", loc.file,
     loc.line);

  /* The C runtime, where a caller chain stops without a lookup (core/race.c). libc's own
   * write: under AddressSanitizer the default `write` is the sanitizer's interceptor. */
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  const uintptr_t cw = libc ? (uintptr_t)dlsym(libc, "write") : 0;
  ok(cw && hrace__symbolize_in_crt(cw + 1), "libc's write is in the C runtime");
  ok(hrace__symbolize_in_crt((uintptr_t)dlsym(RTLD_DEFAULT, "_dl_find_object") + 1) ||
     !dlsym(RTLD_DEFAULT, "_dl_find_object"), "the dynamic loader is in the C runtime");
  ok(!hrace__symbolize_in_crt(fn + 1) && !hrace__symbolize_in_crt(ret),
     "this test's own code is not");
  ok(!hrace__symbolize_in_crt(0) && !hrace__symbolize_in_crt(0x10), "nothing mapped: not");

  /* A caller chain that reaches the C runtime without passing through main (an OpenMP
   * region's: its outermost instrumented frame, main, was entered from libc) stops there:
   * before, the libc frame was looked up and shown, and with libc6-dbg installed the lookup
   * read all of libc's debug info (16 MB resident in every hybrid rank). */
  hrace__opt.stack_depth = 8;
  __tsan_func_entry((void *)(cw + 1));      /* "main", entered from libc */
  __tsan_func_entry((void *)(fn + 1));      /* a function of this test, called from it */
  hrace_report_side_t side;
  chain_here(&side);
  __tsan_func_exit();
  __tsan_func_exit();
  hrace_srcloc_t lw;
  hrace__symbolize(cw + 1, &lw);            /* what libc's frame would say */
  bool crt = false;
  for (unsigned i = 0; i < side.nframes; i++) crt |= strcmp(side.frames[i].loc.func, lw.func) == 0;
  ok(side.nframes >= 2, "the chain has the access and its caller (%u frames)", side.nframes);
  ok(!crt, "and no frame of the C runtime (%s)", lw.func);

  /* Nothing mapped there. */
  ok(!hrace__symbolize(0x10, &loc), "unmapped address is unknown");
  ok(strcmp(loc.func, "??") == 0 && strcmp(loc.file, "??") == 0 && loc.line == 0,
     "unknown gives ?? ?? 0");
  ok(!hrace__symbolize(0, &loc) && strcmp(loc.func, "??") == 0, "0 is unknown");

  /* After a refresh, lookups still work. */
  hrace__symbolize_refresh();
  ret = return_address(); line = __LINE__;
  bool known = hrace__symbolize(ret, &loc);
  ok(known && loc.line == line, "lookup after refresh (line %d)", loc.line);

  /* Concurrent lookups and refreshes from several threads. */
  thread_ret = ret;
  pthread_t t[4];
  bool good[4] = { true, true, true, true };
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, symbolize_thread, &good[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  ok(good[0] && good[1] && good[2] && good[3], "concurrent lookups agree");
  ok(hrace__symbolize(ret, &loc) && strcmp(loc.func, "main") == 0, "still fine afterwards");

  /* Columns: the line table records them (gcc and clang, -g). */
  ok(hrace__symbolize(ret, &loc) && loc.column > 0, "a call site has a column (%d)", loc.column);

  /* Demangling: gfortran module procedures always, C++ when a C++ runtime is loaded. */
  char *d = hrace__demangle("__heat_mod_MOD_step");
  is_string("heat_mod::step", d, "gfortran module procedure");
  free(d);
  ok(hrace__demangle("main") == NULL, "a C name is not mangled");
  ok(hrace__demangle("__x_MOD_") == NULL && hrace__demangle("___MOD_f") == NULL &&
     hrace__demangle("__libc_start_main") == NULL, "not gfortran's form: left alone");
  void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
  if (!cxx) {
    diag("libstdc++.so.6 not loadable: C++ demangling not checked");
    for (int i = 0; i < 5; i++) ok(1, "# SKIP no libstdc++");
  } else {
    d = hrace__demangle("_ZN4halo4Grid2atEii");
    is_string("halo::Grid::at(int, int)", d, "C++ member function, qualified");
    free(d);
    d = hrace__demangle("_ZN12_GLOBAL__N_17stencilEPd");
    is_string("(anonymous namespace)::stencil(double*)", d, "anonymous namespace");
    free(d);
    d = hrace__demangle("_Z4stepIfEvPT_");
    is_string("void step<float>(float*)", d, "template instance");
    free(d);
    ok(hrace__demangle("_Znot mangled") == NULL, "a broken C++ name is left alone");
    ok(hrace__demangle(NULL) == NULL, "NULL");
  }

  return tap_done();
}
