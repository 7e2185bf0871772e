/* base/libc.h: hrace's own lock and unlock, bound to libc's on first use (RTLD_NEXT: the
 * definitions after libhrace's own interposers in core/pthread.c). */
#include <dlfcn.h>
#include <pthread.h>

#include "base/libc.h"

static int first_lock(pthread_mutex_t *m);
static int first_unlock(pthread_mutex_t *m);
int (*hrace__libc_mutex_lock)(pthread_mutex_t *) = first_lock;
int (*hrace__libc_mutex_unlock)(pthread_mutex_t *) = first_unlock;
static int first_lock(pthread_mutex_t *m) {
  int (*f)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
  __atomic_store_n(&hrace__libc_mutex_lock, f, __ATOMIC_RELAXED);
  return f(m);
}
static int first_unlock(pthread_mutex_t *m) {
  int (*f)(pthread_mutex_t *) = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_unlock");
  __atomic_store_n(&hrace__libc_mutex_unlock, f, __ATOMIC_RELAXED);
  return f(m);
}
