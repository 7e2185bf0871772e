/* OpenMP task descriptors have a new owner every time: libomp's own allocator recycles them
 * between tasks of any threads without going through malloc, and the code clang generates
 * writes the task's firstprivate copies and its shared-variable pointers there (the creator)
 * and reads them back (the thread that runs it). Two tasks that happen to get the same block
 * are not ordered by that, so full mode (access/full.h) must forget what it recorded there
 * when the block is handed out: __kmpc_omp_task_alloc is interposed, its result's descriptor
 * (sizeof_kmp_task_t bytes, privates included) and shareds block cleared, then returned.
 *
 * gcc's code calls GOMP_task instead, which allocates inside libomp and then fills the task's
 * argument block with gcc's copy function (instrumented) or a memcpy, after the task-create
 * event: the creator's stores there would look unordered with the task's own accesses. The
 * copy function is wrapped: the block is cleared, and the copy made unchecked (the runtime
 * hands it over to the task). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <stdint.h>

#include "base/compiler.h"
#include "core/thread.h"

#ifdef HRACE_TESTLIB
#define INTERPOSE(name) hrace__test_##name
#else
#define INTERPOSE(name) name
#endif

typedef void *(*task_alloc_fn)(void *loc, int32_t gtid, int32_t flags, size_t sizeof_task,
                               size_t sizeof_shareds, void *entry);

HRACE_EXPORT void *INTERPOSE(__kmpc_omp_task_alloc)(void *loc, int32_t gtid, int32_t flags,
                                                    size_t sizeof_task, size_t sizeof_shareds,
                                                    void *entry) {
  static _Atomic(task_alloc_fn) real;
  task_alloc_fn f = real;
  if (!f) real = f = (task_alloc_fn)dlsym(RTLD_NEXT, "__kmpc_omp_task_alloc");
  if (!f) return NULL;
  void *t = f(loc, gtid, flags, sizeof_task, sizeof_shareds, entry);
  if (t && hrace__mem_fresh_hook) {
    hrace__mem_fresh_hook((uintptr_t)t, sizeof_task);
    void *shareds = *(void **)t;            /* kmp_task_t's first member */
    if (shareds && sizeof_shareds) hrace__mem_fresh_hook((uintptr_t)shareds, sizeof_shareds);
  }
  return t;
}

typedef void (*gomp_task_fn)(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                             long arg_size, long arg_align, bool if_clause, unsigned flags,
                             void **depend, int priority, void *detach);
static __thread struct { void (*cpyfn)(void *, void *); long size; } pending
    __attribute__((tls_model("initial-exec")));

static void copy_wrap(void *dst, void *src) {
  hrace_thread_t *t = hrace__thread();
  if (hrace__mem_fresh_hook && pending.size > 0)
    hrace__mem_fresh_hook((uintptr_t)dst, (size_t)pending.size);
  bool was = t->in_runtime_copy;
  t->in_runtime_copy = true;
  if (pending.cpyfn) pending.cpyfn(dst, src);
  else memcpy(dst, src, (size_t)pending.size);
  t->in_runtime_copy = was;
}

/* All of gcc 12's arguments are passed on (libomp 14 reads the first eight or nine). */
HRACE_EXPORT void INTERPOSE(GOMP_task)(void (*fn)(void *), void *data,
                                       void (*cpyfn)(void *, void *), long arg_size,
                                       long arg_align, bool if_clause, unsigned flags,
                                       void **depend, int priority, void *detach) {
  static _Atomic(gomp_task_fn) real;
  gomp_task_fn f = real;
  if (!f) real = f = (gomp_task_fn)dlsym(RTLD_NEXT, "GOMP_task");
  if (!f) return;
  pending.cpyfn = cpyfn;
  pending.size = arg_size;
  f(fn, data, arg_size > 0 ? copy_wrap : cpyfn, arg_size, arg_align, if_clause, flags, depend,
    priority, detach);
}
