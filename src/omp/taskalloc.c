/* OpenMP task descriptors have a new owner every time: libomp's own allocator recycles them
 * between tasks of any threads without going through malloc, and the code clang generates
 * writes the task's firstprivate copies and its shared-variable pointers there (the creator)
 * and reads them back (the thread that runs it). Two tasks that happen to get the same block
 * are not ordered by that, so full mode (access/full.h) must forget what it recorded there
 * when the block is handed out: __kmpc_omp_task_alloc is interposed, its result's descriptor
 * (sizeof_kmp_task_t bytes, privates included) and shareds block cleared, then returned. */
#include <dlfcn.h>
#include <stddef.h>
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
