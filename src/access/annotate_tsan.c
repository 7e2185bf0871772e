/* ThreadSanitizer's annotation ABI, so that code annotated for TSan or Archer builds with
 * hrace-cc unchanged and its annotations mean to hrace what they mean to TSan:
 *
 *   call                                              hrace
 *   __tsan_release(a), AnnotateHappensBefore(f,l,a)   release into a's clock (a: any address)
 *   __tsan_acquire(a), AnnotateHappensAfter(f,l,a)    acquire a's clock
 *   AnnotateRWLockAcquired(f,l,m,w)                   acquire m's clock
 *   AnnotateRWLockReleased(f,l,m,w)                   release into m's clock
 *   AnnotateRWLockCreate / Destroy                    a fresh clock for m / forget it
 *   __tsan_mutex_post_lock(m, flags, r)               acquire (not when the try-lock failed)
 *   __tsan_mutex_pre_unlock(m, flags)                 release
 *   __tsan_mutex_create / destroy                     a fresh clock / forget it
 *   AnnotateBenignRaceSized(f,l,a,n,d), AnnotateBenignRace   races on [a, a+n) are not reported
 *   AnnotateIgnore{Reads,Writes}{Begin,End}           the thread's loads and stores are not
 *                                                     checked in between (nesting counted)
 *   the rest (thread names, condition variables, PCQ, new memory, ...)   nothing
 *
 * The clocks are kept per address, apart from the ones core/pthread.c keeps for the pthread
 * objects an application locks (an annotation on a pthread mutex adds an edge of its own; both
 * are real orders). Condition-variable annotations do nothing, as in TSan: the mutex carries the
 * order. An ignored region ignores reads and writes alike (also for IgnoreReadsBegin alone):
 * the access layer has one switch per thread, `busy`, which hrace's own memcpy calls use too;
 * a race in such a region is missed, never invented. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "access/thread.h"
#include "base/compiler.h"
#include "base/map.h"
#include "core/hb.h"
#include "report/report.h"

/* ---- sync objects by address ---- */
typedef struct obj { hrace_sync_t s; } obj_t;
static hrace_map_t objs = HRACE_MAP_INIT;   /* address -> obj_t, under objs_mu */
static pthread_mutex_t objs_mu = PTHREAD_MUTEX_INITIALIZER;

static hrace_sync_t *obj_of(const volatile void *a) {
  pthread_mutex_lock(&objs_mu);
  obj_t *o = hrace_map_get(&objs, (uintptr_t)a);
  if (!o && (o = calloc(1, sizeof *o))) {
    hrace__sync_obj_init(&o->s);
    hrace_map_put(&objs, (uintptr_t)a, o);
  }
  pthread_mutex_unlock(&objs_mu);
  return o ? &o->s : NULL;
}

static void obj_drop(const volatile void *a) {
  pthread_mutex_lock(&objs_mu);
  obj_t *o = hrace_map_del(&objs, (uintptr_t)a);
  pthread_mutex_unlock(&objs_mu);
  if (!o) return;
  hrace__sync_obj_destroy(&o->s);
  free(o);
}

static void rel(const volatile void *a, const char *why) {
  hrace_sync_t *s = a ? obj_of(a) : NULL;
  if (s) hrace__release(s, why);
}

static void acq(const volatile void *a, const char *why) {
  hrace_sync_t *s = a ? obj_of(a) : NULL;
  if (s) hrace__acquire(s, why);
}

/* ---- __tsan_* ---- */
HRACE_EXPORT void __tsan_release(void *a) { rel(a, "__tsan_release"); }
HRACE_EXPORT void __tsan_acquire(void *a) { acq(a, "__tsan_acquire"); }

/* tsan_interface.h's flags (the ones that change what a call means here). */
#define TSAN_MUTEX_TRY_LOCK_FAILED (1u << 5)

HRACE_EXPORT void __tsan_mutex_create(void *m, unsigned flags) { (void)flags; obj_drop(m); }
HRACE_EXPORT void __tsan_mutex_destroy(void *m, unsigned flags) { (void)flags; obj_drop(m); }
HRACE_EXPORT void __tsan_mutex_pre_lock(void *m, unsigned flags) { (void)m, (void)flags; }
HRACE_EXPORT void __tsan_mutex_post_lock(void *m, unsigned flags, int recursion) {
  (void)recursion;
  if (!(flags & TSAN_MUTEX_TRY_LOCK_FAILED)) acq(m, "a lock (__tsan_mutex_post_lock)");
}
HRACE_EXPORT int __tsan_mutex_pre_unlock(void *m, unsigned flags) {
  (void)flags;
  rel(m, "an unlock (__tsan_mutex_pre_unlock)");
  return 0;
}
HRACE_EXPORT void __tsan_mutex_post_unlock(void *m, unsigned flags) { (void)m, (void)flags; }
HRACE_EXPORT void __tsan_mutex_pre_signal(void *m, unsigned flags) { (void)m, (void)flags; }
HRACE_EXPORT void __tsan_mutex_post_signal(void *m, unsigned flags) { (void)m, (void)flags; }
HRACE_EXPORT void __tsan_mutex_pre_divert(void *m, unsigned flags) { (void)m, (void)flags; }
HRACE_EXPORT void __tsan_mutex_post_divert(void *m, unsigned flags) { (void)m, (void)flags; }

/* ---- dynamic annotations (Valgrind / TSan's dynamic_annotations.h) ---- */
#define F const char *file, int line
#define UNUSED_FL ((void)file, (void)line)
typedef const volatile void *cvp;

HRACE_EXPORT void AnnotateHappensBefore(F, cvp a) { UNUSED_FL; rel(a, "AnnotateHappensBefore"); }
HRACE_EXPORT void AnnotateHappensAfter(F, cvp a) { UNUSED_FL; acq(a, "AnnotateHappensAfter"); }
HRACE_EXPORT void WTFAnnotateHappensBefore(F, cvp a) { UNUSED_FL; rel(a, "AnnotateHappensBefore"); }
HRACE_EXPORT void WTFAnnotateHappensAfter(F, cvp a) { UNUSED_FL; acq(a, "AnnotateHappensAfter"); }

HRACE_EXPORT void AnnotateRWLockCreate(F, cvp m) { UNUSED_FL; obj_drop(m); }
HRACE_EXPORT void AnnotateRWLockCreateStatic(F, cvp m) { UNUSED_FL; obj_drop(m); }
HRACE_EXPORT void AnnotateRWLockDestroy(F, cvp m) { UNUSED_FL; obj_drop(m); }
HRACE_EXPORT void AnnotateRWLockAcquired(F, cvp m, long is_w) {
  UNUSED_FL, (void)is_w;
  acq(m, "a lock (AnnotateRWLockAcquired)");
}
HRACE_EXPORT void AnnotateRWLockReleased(F, cvp m, long is_w) {
  UNUSED_FL, (void)is_w;
  rel(m, "an unlock (AnnotateRWLockReleased)");
}

HRACE_EXPORT void AnnotateBenignRaceSized(F, cvp mem, unsigned long size, const char *desc) {
  UNUSED_FL, (void)desc;
  hrace__report_benign((uintptr_t)mem, size);
}
HRACE_EXPORT void WTFAnnotateBenignRaceSized(F, cvp mem, unsigned long size, const char *desc) {
  AnnotateBenignRaceSized(file, line, mem, size, desc);
}
HRACE_EXPORT void AnnotateBenignRace(F, cvp mem, const char *desc) {
  AnnotateBenignRaceSized(file, line, mem, 1, desc);
}

/* Ignored regions: one per-thread count of open Begin calls (reads and writes together). */
static __thread unsigned ignoring __attribute__((tls_model("initial-exec")));

static void ignore_begin(void) {
  if (ignoring++ == 0) hrace__athread()->busy = true;
}
static void ignore_end(void) {
  if (ignoring > 0 && --ignoring == 0) hrace__at.busy = false;
}
HRACE_EXPORT void AnnotateIgnoreReadsBegin(F) { UNUSED_FL; ignore_begin(); }
HRACE_EXPORT void AnnotateIgnoreReadsEnd(F) { UNUSED_FL; ignore_end(); }
HRACE_EXPORT void AnnotateIgnoreWritesBegin(F) { UNUSED_FL; ignore_begin(); }
HRACE_EXPORT void AnnotateIgnoreWritesEnd(F) { UNUSED_FL; ignore_end(); }

/* Meaningless to hrace (or, as in TSan, no-ops): accepted so annotated code links. */
HRACE_EXPORT void AnnotateIgnoreSyncBegin(F) { UNUSED_FL; }
HRACE_EXPORT void AnnotateIgnoreSyncEnd(F) { UNUSED_FL; }
HRACE_EXPORT void AnnotateCondVarSignal(F, cvp cv) { UNUSED_FL, (void)cv; }
HRACE_EXPORT void AnnotateCondVarSignalAll(F, cvp cv) { UNUSED_FL, (void)cv; }
HRACE_EXPORT void AnnotateCondVarWait(F, cvp cv, cvp lock) { UNUSED_FL, (void)cv, (void)lock; }
HRACE_EXPORT void AnnotateMutexIsNotPHB(F, cvp mu) { UNUSED_FL, (void)mu; }
HRACE_EXPORT void AnnotateMutexIsUsedAsCondVar(F, cvp mu) { UNUSED_FL, (void)mu; }
HRACE_EXPORT void AnnotatePCQCreate(F, cvp q) { UNUSED_FL, (void)q; }
HRACE_EXPORT void AnnotatePCQDestroy(F, cvp q) { UNUSED_FL, (void)q; }
HRACE_EXPORT void AnnotatePCQPut(F, cvp q) { UNUSED_FL, (void)q; }
HRACE_EXPORT void AnnotatePCQGet(F, cvp q) { UNUSED_FL, (void)q; }
HRACE_EXPORT void AnnotateNewMemory(F, cvp mem, unsigned long size) { UNUSED_FL, (void)mem, (void)size; }
HRACE_EXPORT void AnnotateExpectRace(F, cvp mem, const char *desc) { UNUSED_FL, (void)mem, (void)desc; }
HRACE_EXPORT void AnnotateFlushExpectedRaces(F) { UNUSED_FL; }
HRACE_EXPORT void AnnotateEnableRaceDetection(F, int enable) { UNUSED_FL, (void)enable; }
HRACE_EXPORT void AnnotateTraceMemory(F, cvp mem) { UNUSED_FL, (void)mem; }
HRACE_EXPORT void AnnotateThreadName(F, const char *name) { UNUSED_FL, (void)name; }
HRACE_EXPORT void AnnotateFlushState(F) { UNUSED_FL; }
HRACE_EXPORT void AnnotateNoOp(F, cvp arg) { UNUSED_FL, (void)arg; }
HRACE_EXPORT void AnnotatePublishMemoryRange(F, cvp a, unsigned long size) { UNUSED_FL, (void)a, (void)size; }
HRACE_EXPORT void AnnotateUnpublishMemoryRange(F, cvp a, unsigned long size) { UNUSED_FL, (void)a, (void)size; }
HRACE_EXPORT void AnnotateMemoryIsInitialized(F, cvp mem, unsigned long size) { UNUSED_FL, (void)mem, (void)size; }
HRACE_EXPORT void AnnotateMemoryIsUninitialized(F, cvp mem, unsigned long size) { UNUSED_FL, (void)mem, (void)size; }
HRACE_EXPORT int RunningOnValgrind(void) { return 0; }
HRACE_EXPORT double ValgrindSlowdown(void) { return 1.0; }
