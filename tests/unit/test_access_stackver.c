/* Unit tests of the shadow stack's version (access/thread.h, hrace__athread_stack_ver): 0 with
 * no instrumented frame, a new one at every push (a second call from the same line at the same
 * depth included), the caller's again after a return, and a recursion deep enough to overwrite
 * the caller's ring slot changing it (a miss, never a false equality). */
#include "access/thread.h"
#include "tap.h"

void __tsan_func_entry(void *pc);
void __tsan_func_exit(void);

#define PC(x) ((void *)(uintptr_t)(0x400000 + (x)))

int main(void) {
  const hrace_athread_t *t = &hrace__at;
  unsigned d0 = t->depth;
  ok(d0 || hrace__athread_stack_ver(t) == 0, "no instrumented frame: version 0");
  __tsan_func_entry(PC(0x10));
  uint64_t a = hrace__athread_stack_ver(t);
  ok(a != 0, "a push gives a version");
  __tsan_func_entry(PC(0x20));
  uint64_t b = hrace__athread_stack_ver(t);
  ok(b != a, "a second push another");
  __tsan_func_exit();
  ok(hrace__athread_stack_ver(t) == a, "the return gives the caller's back");
  __tsan_func_entry(PC(0x20));
  uint64_t c = hrace__athread_stack_ver(t);
  ok(c != b && c != a, "the same call again, same line and depth: a new version");
  __tsan_func_exit();
  for (int i = 0; i < 70; i++) __tsan_func_entry(PC(0x30));
  for (int i = 0; i < 70; i++) __tsan_func_exit();
  is_int(d0 + 1, t->depth, "back at the caller's depth after 70 levels");
  ok(hrace__athread_stack_ver(t) != a,
     "70 levels deeper overwrote the caller's ring slot: its version changed (a miss)");
  for (int i = 0; i < 50; i++) __tsan_func_entry(PC(0x30));
  uint64_t deep = hrace__athread_stack_ver(t);
  for (int i = 0; i < 50; i++) __tsan_func_exit();
  uint64_t back = hrace__athread_stack_ver(t);
  ok(deep != back, "50 levels deeper: another version there");
  __tsan_func_entry(PC(0x40));
  __tsan_func_exit();
  ok(hrace__athread_stack_ver(t) == back, "and the caller's kept after them");
  __tsan_func_exit();
  is_int(d0, t->depth, "balanced");
  return tap_done();
}
