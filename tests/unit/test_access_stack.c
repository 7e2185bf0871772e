/* Unit tests of the shadow call stack and the interned stack table (src/access/stack.h,
 * src/core/stack.h): the frames __tsan_func_entry pushes come back innermost first after the
 * access's own address, equal stacks intern to one id, deep recursion keeps the innermost
 * frames, unbalanced exits do no harm, and threads interning the same stacks at once agree on the ids. */
#include <pthread.h>

#include "access/stack.h"
#include "access/thread.h"
#include "tap.h"

void __tsan_func_entry(void *pc);
void __tsan_func_exit(void);

#define PC(x) ((void *)(uintptr_t)(0x400000 + (x)))

static int frames_are(uint32_t id, const uintptr_t *want, unsigned n) {
  const uintptr_t *pcs;
  unsigned got = hrace__stack_get(id, &pcs);
  if (got != n) {
    diag("stack %u has %u frames, wanted %u", id, got, n);
    return 0;
  }
  for (unsigned i = 0; i < n; i++)
    if (pcs[i] != want[i]) {
      diag("frame %u is %#lx, wanted %#lx", i, (unsigned long)pcs[i], (unsigned long)want[i]);
      return 0;
    }
  return 1;
}

static void test_capture(void) {
  const uintptr_t *pcs;
  is_int(0, hrace__stack_get(0, &pcs), "id 0 has no frames");
  is_int(0, hrace__stack_capture_at(0), "an empty stack without an access address: id 0");
  __tsan_func_entry(PC(0x10));     /* main called f at 0x10 */
  __tsan_func_entry(PC(0x20));     /* f called g at 0x20 */
  uint32_t a = hrace__stack_capture_at(0x30);
  ok(a != 0, "a stack of two calls and an access gets an id");
  const uintptr_t want[] = { 0x30, 0x400020, 0x400010 };
  ok(frames_are(a, want, 3), "its frames: the access, then the calls, innermost first");
  is_int(a, hrace__stack_capture_at(0x30), "the same stack again: the same id");
  ok(hrace__stack_capture_at(0x34) != a, "another access address: another id");
  hrace__at.access_pc = 0x30;
  is_int(a, hrace__stack_capture(), "capture() takes the address of the access being handled");
  __tsan_func_exit();
  uint32_t b = hrace__stack_capture_at(0x30);
  const uintptr_t want_b[] = { 0x30, 0x400010 };
  ok(b != a && frames_are(b, want_b, 2), "after one return: one call left");
  __tsan_func_exit();
  __tsan_func_exit();              /* one exit too many (an uninstrumented caller, longjmp) */
  __tsan_func_exit();
  is_int(0, hrace__at.depth, "extra exits leave the depth at 0");
  const uintptr_t want_c[] = { 0x30 };
  ok(frames_are(hrace__stack_capture_at(0x30), want_c, 1), "and the stack empty");

  for (unsigned d = 0; d < 200; d++) __tsan_func_entry(PC(d));
  uint32_t deep = hrace__stack_capture_at(0x99);
  uintptr_t want_d[HRACE_STACK_FRAMES] = { 0x99 };
  for (unsigned i = 1; i < HRACE_STACK_FRAMES; i++) want_d[i] = 0x400000 + 200 - i;
  ok(frames_are(deep, want_d, HRACE_STACK_FRAMES), "200 calls deep: the %d innermost frames",
     HRACE_STACK_FRAMES);
  for (unsigned d = 0; d < 200; d++) __tsan_func_exit();
  is_int(0, hrace__at.depth, "and back to depth 0");
}

/* Threads interning the same 64 stacks concurrently get the same ids. */
static uint32_t ids[4][64];
static void *intern_all(void *arg) {
  int t = (int)(intptr_t)arg;
  __tsan_func_entry(PC(0x1000));
  for (int rep = 0; rep < 50; rep++)
    for (int k = 0; k < 64; k++) {
      uint32_t id = hrace__stack_capture_at(0x5000 + (uintptr_t)k);
      if (rep == 0) ids[t][k] = id;
      else if (ids[t][k] != id) ids[t][k] = 0;
    }
  __tsan_func_exit();
  return NULL;
}
static void test_threads(void) {
  pthread_t th[4];
  for (int t = 0; t < 4; t++) pthread_create(&th[t], NULL, intern_all, (void *)(intptr_t)t);
  for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
  int bad = 0;
  for (int k = 0; k < 64; k++)
    for (int t = 0; t < 4; t++)
      if (!ids[t][k] || ids[t][k] != ids[0][k] || (k && ids[t][k] == ids[t][k - 1])) bad++;
  is_int(0, bad, "4 threads interning 64 stacks 50 times each agree on 64 distinct ids");
}

int main(void) {
  test_capture();
  test_threads();
  return tap_done();
}
