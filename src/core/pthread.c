/* Threads the application makes with pthread_create: the creation and join edges.
 *
 * OpenMP threads get their edges from OMPT (omp/ompt.c). A thread made with pthread_create
 * had none: its first access to window memory the creator wrote before creating it, or the
 * joiner's first access after pthread_join to what it wrote, was reported as a race in a
 * correct program (tests/cases/hyb_pthread_*). ThreadSanitizer's runtime intercepts these two
 * calls for the same reason; libhrace replaces that runtime, so it does it here:
 *   pthread_create   the creator releases into the new thread's record, the new thread
 *                    acquires it before running the start routine;
 *   thread end       the thread releases into its record (start routine returned, or
 *                    pthread_exit / cancellation, through a cleanup handler);
 *   pthread_join     the joiner acquires the record of the thread it joined.
 * Threads that libomp and the MPI library make go through here too: the creation edge is a
 * real order (everything the creator did came first), so it can hide no race. hrace's own
 * threads (the progress thread) are created without records.
 *
 * Locks, condition variables, barriers and semaphores are modelled for the application's own
 * calls only (the caller is an instrumented module, core/mpicode.h), as TSan does: a lock is
 * an acquire of the object's clock, an unlock a release into it (before the real unlock, while
 * the caller still holds it), a condition wait a release and re-acquire of its mutex, a
 * barrier a release then acquire, sem_post / sem_wait a release / acquire. The MPI library's
 * and libomp's internal locking is left alone: two threads that both call MPI must not look
 * ordered by the library's mutexes (the hybrid precision of docs/design.md). */
#include "base/libc.h"         /* hrace__libc_mutex_lock / unlock (the testlib lacks -include) */
#undef pthread_mutex_lock     /* base/libc.h: this file defines what the others call */
#undef pthread_mutex_unlock
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/list.h"
#include "base/map.h"
#include "core/mpicode.h"
#include "core/thread.h"
#include "core/hb.h"
#include "base/log.h"

void (*hrace__threads_coming_hook)(void);
void (*hrace__ctx_switch_hook)(void);
void (*hrace__mem_fresh_hook)(uintptr_t a, size_t n);
_Atomic int hrace__ompt_active;
_Atomic int hrace__thread_sync_unseen;

int hrace__thread_sync_unseen_check(void) {
  if (atomic_load(&hrace__ompt_active)) return 0;
  if (atomic_load(&hrace__thread_sync_unseen)) return 1;
  int (*max_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  if (!max_threads) return 0;                   /* no OpenMP runtime loaded */
  max_threads();            /* initialises the runtime if nothing did yet, and its OMPT tool */
  if (atomic_load(&hrace__ompt_active)) return 0;
  if (atomic_exchange(&hrace__thread_sync_unseen, 1)) return 1;
  hrace__warn("OpenMP runs without OMPT (OMP_TOOL=disabled, or a runtime without it): the "
              "threads' synchronisation is unseen, so races between threads of a process are "
              "not reported (races between processes still are)");
  return 1;
}

/* The unit tests link a static copy of the runtime into each test program: there the
 * interposers get other names, or every test would pull the runtime in through its locks. */
#ifdef HRACE_TESTLIB
#define INTERPOSE(name) hrace__test_##name
#else
#define INTERPOSE(name) name
#endif

/* libc's function NAME (of version VER), looked up on first use. */
#define REALV(type, name, ver)                                                                  \
  ({                                                                                            \
    static _Atomic(type) f_;                                                                    \
    type g_ = f_;                                                                               \
    if (HRACE_UNLIKELY(!g_)) {                                                                  \
      g_ = (type)dlvsym(RTLD_NEXT, name, ver);                                                  \
      if (!g_) g_ = (type)dlsym(RTLD_NEXT, name);                                               \
      f_ = g_;                                                                                  \
    }                                                                                           \
    g_;                                                                                         \
  })
#define REAL(type, name)                                                                        \
  ({                                                                                            \
    static _Atomic(type) f_;                                                                    \
    type g_ = f_;                                                                               \
    if (HRACE_UNLIKELY(!g_)) f_ = g_ = (type)dlsym(RTLD_NEXT, name);                            \
    g_;                                                                                         \
  })
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);
typedef int (*detach_fn)(pthread_t);

typedef struct rec {
  void *(*fn)(void *);
  void *arg;
  hrace_sync_t start, end;
  pthread_t id;
  int ended, detached;       /* under mu */
  int library;               /* made inside an MPI call: the MPI library's thread */
  hrace_list_t link;         /* on recs while listed (else linked to itself) */
} rec_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
/* Threads created here, until joined (or, detached, until they end); newest first. */
static hrace_list_t recs = HRACE_LIST_INIT(recs);

/* The listed record of thread t, or NULL; caller holds mu. */
static rec_t *find(pthread_t t) {
  hrace_list_for_each(l, nx, &recs) {
    rec_t *x = hrace_list_entry(l, rec_t, link);
    if (pthread_equal(x->id, t)) return x;
  }
  return NULL;
}

/* Take r off the list: r, or NULL when it was not on it; caller holds mu. */
static rec_t *unlist(rec_t *r) {
  if (!r || r->link.next == &r->link) return NULL;
  hrace_list_remove(&r->link);
  return r;
}

static void rec_free(rec_t *r) {
  hrace__sync_obj_destroy(&r->start);
  hrace__sync_obj_destroy(&r->end);
  free(r);
}

/* The thread's end (its start routine returned, or pthread_exit / cancellation). A detached
 * thread has no joiner: its record goes with it. */
static void ended(void *p) {
  rec_t *r = p;
  hrace__release(&r->end, "the end of a thread");
  hrace__libc_mutex_lock(&mu);
  r->ended = 1;
  int drop = r->detached && unlist(r);
  hrace__libc_mutex_unlock(&mu);
  if (drop) rec_free(r);
}

static void *trampoline(void *p) {
  rec_t *r = p;
  hrace__acquire(&r->start, "the start of a thread (pthread_create)");
  if (r->library) hrace__ctx_unlive_thread();   /* keeps no wire base alive (core/hb.h) */
  void *ret;
  pthread_cleanup_push(ended, r);
  ret = r->fn(r->arg);
  pthread_cleanup_pop(1);
  return ret;
}

/* hrace's own threads (the progress thread): no records, and out of the registry of live
 * contexts, where their own context would keep every wire base alive (core/hb.h). */
typedef struct own { void *(*fn)(void *); void *arg; } own_t;

static void *own_trampoline(void *p) {
  own_t o = *(own_t *)p;
  free(p);
  hrace__thread();
  hrace__ctx_unlive_thread();
  return o.fn(o.arg);
}

static int own_create(create_fn real_create, pthread_t *t, const pthread_attr_t *attr,
                      void *(*fn)(void *), void *arg) {
  own_t *o = malloc(sizeof *o);
  if (!o) return real_create(t, attr, fn, arg);
  *o = (own_t){ fn, arg };
  int rc = real_create(t, attr, own_trampoline, o);
  if (rc) free(o);
  return rc;
}

HRACE_EXPORT int INTERPOSE(pthread_create)(pthread_t *t, const pthread_attr_t *attr,
                                           void *(*fn)(void *), void *arg) {
  create_fn real_create = REAL(create_fn, "pthread_create");
  if (!real_create) return EAGAIN;
  rec_t *r;
  if (hrace__pc_in_self((uintptr_t)__builtin_return_address(0))) return own_create(real_create, t, attr, fn, arg);
  if (!(r = calloc(1, sizeof *r))) return real_create(t, attr, fn, arg);
  /* The application makes a second thread: full mode starts before it can run. */
  if (hrace__threads_coming_hook && hrace__pc_instrumented((uintptr_t)__builtin_return_address(0)))
    hrace__threads_coming_hook();
  r->fn = fn, r->arg = arg;
  r->library = hrace__thread()->depth > 0;
  hrace_list_init(&r->link);
  int ds = PTHREAD_CREATE_JOINABLE;
  if (attr) pthread_attr_getdetachstate(attr, &ds);
  r->detached = ds == PTHREAD_CREATE_DETACHED;
  hrace__sync_obj_init(&r->start);
  hrace__sync_obj_init(&r->end);
  hrace__release(&r->start, "pthread_create");
  /* Listed under the lock the thread's end takes: it may end before real_create returns. */
  hrace__libc_mutex_lock(&mu);
  int rc = real_create(t, attr, trampoline, r);
  if (rc == 0) {
    r->id = *t;
    hrace_list_push_front(&recs, &r->link);
  }
  hrace__libc_mutex_unlock(&mu);
  if (rc != 0) rec_free(r);
  return rc;
}

/* Thread t was joined: the joiner is ordered after its end. */
static void joined(pthread_t t, const char *why) {
  hrace__libc_mutex_lock(&mu);
  rec_t *r = unlist(find(t));
  hrace__libc_mutex_unlock(&mu);
  if (r) {
    hrace__acquire(&r->end, why);
    rec_free(r);
  }
}

HRACE_EXPORT int INTERPOSE(pthread_join)(pthread_t t, void **ret) {
  int rc = REAL(join_fn, "pthread_join")(t, ret);
  if (rc == 0) joined(t, "pthread_join");
  return rc;
}

typedef int (*tryjoin_fn)(pthread_t, void **);
HRACE_EXPORT int INTERPOSE(pthread_tryjoin_np)(pthread_t t, void **ret) {
  int rc = REAL(tryjoin_fn, "pthread_tryjoin_np")(t, ret);
  if (rc == 0) joined(t, "pthread_tryjoin_np");
  return rc;
}

typedef int (*timedjoin_fn)(pthread_t, void **, const struct timespec *);
HRACE_EXPORT int INTERPOSE(pthread_timedjoin_np)(pthread_t t, void **ret,
                                                 const struct timespec *ts) {
  int rc = REAL(timedjoin_fn, "pthread_timedjoin_np")(t, ret, ts);
  if (rc == 0) joined(t, "pthread_timedjoin_np");
  return rc;
}

HRACE_EXPORT int INTERPOSE(pthread_detach)(pthread_t t) {
  int rc = REAL(detach_fn, "pthread_detach")(t);
  if (rc != 0) return rc;
  hrace__libc_mutex_lock(&mu);
  rec_t *r = find(t);
  if (r && r->ended) unlist(r);
  else if (r) r->detached = 1, r = NULL;
  hrace__libc_mutex_unlock(&mu);
  if (r) rec_free(r);
  return rc;
}

/* ---- locks and friends ------------------------------------------------------------------------ */
/* The clock of each application synchronisation object, by address; dropped at destroy so a
 * reused address starts afresh. */
typedef struct obj { hrace_sync_t s; } obj_t;
static hrace_map_t objs = HRACE_MAP_INIT;   /* address -> obj_t, under obj_mu */
static pthread_mutex_t obj_mu = PTHREAD_MUTEX_INITIALIZER;

static hrace_sync_t *obj_of(const void *a) {
  hrace__libc_mutex_lock(&obj_mu);
  obj_t *o = hrace_map_get(&objs, (uintptr_t)a);
  if (!o && (o = calloc(1, sizeof *o))) {
    hrace__sync_obj_init(&o->s);
    hrace_map_put(&objs, (uintptr_t)a, o);
  }
  hrace__libc_mutex_unlock(&obj_mu);
  return o ? &o->s : NULL;
}

static void obj_drop(const void *a) {
  hrace__libc_mutex_lock(&obj_mu);
  obj_t *o = hrace_map_del(&objs, (uintptr_t)a);
  hrace__libc_mutex_unlock(&obj_mu);
  if (!o) return;
  hrace__sync_obj_destroy(&o->s);
  free(o);
}

static void acq(const void *a, const char *why) {
  hrace_sync_t *s = obj_of(a);
  if (s) hrace__acquire(s, why);
}
static void rel(const void *a, const char *why) {
  hrace_sync_t *s = obj_of(a);
  if (s) hrace__release(s, why);
}

#define APP() hrace__pc_instrumented((uintptr_t)__builtin_return_address(0))

typedef int (*lock_fn)(void *);
typedef int (*timed_fn)(void *, const struct timespec *);

/* One wrapper per call: FN(object) -> acquire after success, or release before. */
#define ACQUIRE1(fn, T)                                                                         \
  HRACE_EXPORT int INTERPOSE(fn)(T *o) {                                                                   \
    int rc = REAL(lock_fn, #fn)((void *)o);                                                       \
    if (rc == 0 && APP()) acq((const void *)o, #fn);                                                          \
    return rc;                                                                                  \
  }
#define ACQUIRE2(fn, T)                                                                         \
  HRACE_EXPORT int INTERPOSE(fn)(T *o, const struct timespec *ts) {                                        \
    int rc = REAL(timed_fn, #fn)((void *)o, ts);                                                  \
    if (rc == 0 && APP()) acq((const void *)o, #fn);                                                          \
    return rc;                                                                                  \
  }
#define RELEASE1(fn, T)                                                                         \
  HRACE_EXPORT int INTERPOSE(fn)(T *o) {                                                                   \
    if (APP()) rel((const void *)o, #fn);                                                                     \
    return REAL(lock_fn, #fn)((void *)o);                                                         \
  }
#define DESTROY1(fn, T)                                                                         \
  HRACE_EXPORT int INTERPOSE(fn)(T *o) {                                                                   \
    if (APP()) obj_drop((const void *)o);                                                                     \
    return REAL(lock_fn, #fn)((void *)o);                                                         \
  }

/* The clock* forms (glibc 2.30; C++'s timed waits use them): FN(object, clock, deadline). */
typedef int (*clocked_fn)(void *, clockid_t, const struct timespec *);
#define ACQUIRE3(fn, T)                                                                         \
  HRACE_EXPORT int INTERPOSE(fn)(T *o, clockid_t ck, const struct timespec *ts) {               \
    int rc = REAL(clocked_fn, #fn)((void *)o, ck, ts);                                          \
    if (rc == 0 && APP()) acq((const void *)o, #fn);                                            \
    return rc;                                                                                  \
  }

ACQUIRE1(pthread_mutex_lock, pthread_mutex_t)
ACQUIRE3(pthread_mutex_clocklock, pthread_mutex_t)
ACQUIRE3(pthread_rwlock_clockrdlock, pthread_rwlock_t)
ACQUIRE3(pthread_rwlock_clockwrlock, pthread_rwlock_t)
ACQUIRE3(sem_clockwait, sem_t)
ACQUIRE1(pthread_mutex_trylock, pthread_mutex_t)
ACQUIRE2(pthread_mutex_timedlock, pthread_mutex_t)
RELEASE1(pthread_mutex_unlock, pthread_mutex_t)
DESTROY1(pthread_mutex_destroy, pthread_mutex_t)
ACQUIRE1(pthread_spin_lock, pthread_spinlock_t)
ACQUIRE1(pthread_spin_trylock, pthread_spinlock_t)
RELEASE1(pthread_spin_unlock, pthread_spinlock_t)
DESTROY1(pthread_spin_destroy, pthread_spinlock_t)
ACQUIRE1(pthread_rwlock_rdlock, pthread_rwlock_t)
ACQUIRE1(pthread_rwlock_wrlock, pthread_rwlock_t)
ACQUIRE1(pthread_rwlock_tryrdlock, pthread_rwlock_t)
ACQUIRE1(pthread_rwlock_trywrlock, pthread_rwlock_t)
ACQUIRE2(pthread_rwlock_timedrdlock, pthread_rwlock_t)
ACQUIRE2(pthread_rwlock_timedwrlock, pthread_rwlock_t)
RELEASE1(pthread_rwlock_unlock, pthread_rwlock_t)
DESTROY1(pthread_rwlock_destroy, pthread_rwlock_t)
ACQUIRE1(sem_wait, sem_t)
ACQUIRE1(sem_trywait, sem_t)
ACQUIRE2(sem_timedwait, sem_t)
RELEASE1(sem_post, sem_t)
DESTROY1(sem_destroy, sem_t)

/* The mutex is released while the thread waits and held again when it returns (timed out or
 * not). glibc keeps the pre-2.3.2 condition variables under the old version: ask for the
 * current one. */
typedef int (*cwait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*ctimed_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);

HRACE_EXPORT int INTERPOSE(pthread_cond_wait)(pthread_cond_t *c, pthread_mutex_t *m) {
  int app = APP();
  if (app) rel(m, "pthread_cond_wait");
  int rc = REALV(cwait_fn, "pthread_cond_wait", "GLIBC_2.3.2")(c, m);
  if (app) acq(m, "pthread_cond_wait");
  return rc;
}

HRACE_EXPORT int INTERPOSE(pthread_cond_timedwait)(pthread_cond_t *c, pthread_mutex_t *m,
                                        const struct timespec *ts) {
  int app = APP();
  if (app) rel(m, "pthread_cond_timedwait");
  int rc = REALV(ctimed_fn, "pthread_cond_timedwait", "GLIBC_2.3.2")(c, m, ts);
  if (app) acq(m, "pthread_cond_timedwait");
  return rc;
}

typedef int (*cclock_fn)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
HRACE_EXPORT int INTERPOSE(pthread_cond_clockwait)(pthread_cond_t *c, pthread_mutex_t *m,
                                                   clockid_t ck, const struct timespec *ts) {
  int app = APP();
  if (app) rel(m, "pthread_cond_clockwait");
  int rc = REAL(cclock_fn, "pthread_cond_clockwait")(c, m, ck, ts);
  if (app) acq(m, "pthread_cond_clockwait");
  return rc;
}

typedef int (*bwait_fn)(pthread_barrier_t *);
HRACE_EXPORT int INTERPOSE(pthread_barrier_wait)(pthread_barrier_t *b) {
  int app = APP();
  if (app) rel(b, "pthread_barrier_wait");
  int rc = REAL(bwait_fn, "pthread_barrier_wait")(b);
  if (app) acq(b, "pthread_barrier_wait");
  return rc;
}
