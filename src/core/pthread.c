/* Threads the application makes with pthread_create: the creation and join edges.
 *
 * OpenMP threads get their edges from OMPT (omp/ompt.c). A thread made with pthread_create
 * had none: its first access to window memory the creator wrote before creating it, or the
 * joiner's first access after pthread_join to what it wrote, was reported as a race in a
 * correct program (tests/cases/pthread_*). ThreadSanitizer's runtime intercepts these two
 * calls for the same reason; libhrace replaces that runtime, so it does it here:
 *   pthread_create   the creator releases into the new thread's record, the new thread
 *                    acquires it before running the start routine;
 *   thread end       the thread releases into its record (start routine returned, or
 *                    pthread_exit / cancellation, through a cleanup handler);
 *   pthread_join     the joiner acquires the record of the thread it joined.
 * Threads that libomp and the MPI library make go through here too: the creation edge is a
 * real order (everything the creator did came first), so it can hide no race. hrace's own
 * threads (the progress thread) are created without records. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "access/mpicode.h"
#include "core/runtime.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);

typedef struct rec {
  void *(*fn)(void *);
  void *arg;
  hrace_sync_t start, end;
  pthread_t id;
  struct rec *next;
} rec_t;

static _Atomic(create_fn) real_create;   /* libc's, looked up on first use */
static _Atomic(join_fn) real_join;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static rec_t *recs;   /* threads created here and not joined yet */

static void resolve(void) {
  if (!real_create) real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!real_join) real_join = (join_fn)dlsym(RTLD_NEXT, "pthread_join");
}

static void ended(void *p) { hrace__release(&((rec_t *)p)->end, "the end of a thread"); }

static void *trampoline(void *p) {
  rec_t *r = p;
  hrace__acquire(&r->start, "the start of a thread (pthread_create)");
  void *ret;
  pthread_cleanup_push(ended, r);
  ret = r->fn(r->arg);
  pthread_cleanup_pop(1);
  return ret;
}

HRACE_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *),
                                void *arg) {
  resolve();
  if (!real_create) return EAGAIN;
  rec_t *r;
  if (hrace__pc_in_self((uintptr_t)__builtin_return_address(0)) || !(r = calloc(1, sizeof *r)))
    return real_create(t, attr, fn, arg);
  r->fn = fn, r->arg = arg;
  hrace__sync_obj_init(&r->start);
  hrace__sync_obj_init(&r->end);
  hrace__release(&r->start, "pthread_create");
  /* Listed before the thread exists: it may end, and be joined, before real_create returns. */
  pthread_mutex_lock(&mu);
  int rc = real_create(t, attr, trampoline, r);
  if (rc == 0) {
    r->id = *t;
    r->next = recs;
    recs = r;
  }
  pthread_mutex_unlock(&mu);
  if (rc != 0) {
    hrace__sync_obj_destroy(&r->start);
    hrace__sync_obj_destroy(&r->end);
    free(r);
  }
  return rc;
}

HRACE_EXPORT int pthread_join(pthread_t t, void **ret) {
  resolve();
  if (!real_join) return ESRCH;
  int rc = real_join(t, ret);
  if (rc != 0) return rc;
  pthread_mutex_lock(&mu);
  rec_t *r = NULL;
  for (rec_t **p = &recs; *p; p = &(*p)->next)
    if (pthread_equal((*p)->id, t)) {
      r = *p;
      *p = r->next;
      break;
    }
  pthread_mutex_unlock(&mu);
  if (r) {
    hrace__acquire(&r->end, "pthread_join");
    hrace__sync_obj_destroy(&r->start);
    hrace__sync_obj_destroy(&r->end);
    free(r);
  }
  return rc;
}
