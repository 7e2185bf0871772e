/* A short yield-spin before a thread sleeps for something another thread of this process will
 * do soon (a deposit, a reply: bench/README.md, "Waiting for a deposit or a reply").
 *
 * Sleeping on a condition variable and being woken costs tens of microseconds on a busy
 * machine, often more than the wait itself in a pipeline of tiny epochs. So a waiter first
 * yields the processor (to the progress thread that will act, when it shares the core) and
 * looks again, for at most `limit_ns`. On a loaded machine a yield gives the core to another
 * process for a whole time slice, and a sleeper woken by the event would have run sooner: one
 * yield that comes back later than HRACE_SPIN_SLOW_NS ends the spin and turns spinning off for
 * the thread's next HRACE_SPIN_BACKOFF waits. */
#ifndef HRACE_CORE_SPIN_H
#define HRACE_CORE_SPIN_H
#include <sched.h>
#include <stdint.h>
#include <time.h>

#define HRACE_SPIN_SLOW_NS 100000L
#define HRACE_SPIN_BACKOFF 256

static inline int64_t hrace__spin_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Yield and call ready(arg) until it returns non-zero (returns 1) or limit_ns have passed,
 * the machine looks loaded, or spinning is backed off (returns 0). The caller holds no lock
 * that ready's event needs. */
static inline int hrace__spin(int (*ready)(void *), void *arg, int64_t limit_ns) {
  static __thread unsigned backoff;
  if (backoff) {
    backoff--;
    return 0;
  }
  int64_t t0 = hrace__spin_now(), t = t0;
  for (;;) {
    sched_yield();
    int64_t u = hrace__spin_now();
    if (ready(arg)) return 1;
    if (u - t > HRACE_SPIN_SLOW_NS) {
      backoff = HRACE_SPIN_BACKOFF;
      return 0;
    }
    if (u - t0 > limit_ns) return 0;
    t = u;
  }
}
#endif
