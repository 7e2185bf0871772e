/* Heap blocks (see alloc.h): the interposers, the shadow clear, and the live blocks' sites.
 *
 * glibc's allocator is reached through __libc_malloc & co., so no dlsym (which allocates) is
 * needed. Live blocks are kept in 64 shards (a lock and a hash map each, keyed by address);
 * the maps allocate through these very functions, so a thread inside a shard marks itself and
 * its nested calls skip the shards. */
#include "access/alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access/full.h"
#include "base/compiler.h"
#include "base/map.h"
#include "core/mpicode.h"
#include "report/symbolize.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);

/* The unit tests' static copy keeps libc's allocator; so does the sanitizer variant
 * (HRACE_SANITIZE): AddressSanitizer must own malloc and free itself, and with libhrace ahead of
 * it in the preload order every rank crashed at start (docs/testing.md, "Sanitizers"). */
#if defined(HRACE_TESTLIB) || defined(HRACE_SANITIZE)
#define INTERPOSE(name) hrace__test_##name
#else
#define INTERPOSE(name) name
#endif

#define SHARDS 64
typedef struct blk { uint64_t size; uintptr_t pc; const char *fn; } blk_t;
static struct shard { pthread_mutex_t mu; hrace_map_t m; } shards[SHARDS];
static _Atomic long nlive;                     /* blocks remembered, all shards */
static __thread int inside __attribute__((tls_model("initial-exec")));

__attribute__((constructor)) static void shards_init(void) {
  for (int i = 0; i < SHARDS; i++) pthread_mutex_init(&shards[i].mu, NULL);
}
static struct shard *shard_of(uintptr_t p) { return &shards[(p >> 4 ^ p >> 12) & (SHARDS - 1)]; }

/* A block [p, p+n) was handed out by `fn` to the code at pc. */
static void fresh(void *p, size_t n, uintptr_t pc, const char *fn) {
  if (!p || !atomic_load_explicit(&hrace__full_armed, memory_order_relaxed) || inside) return;
  inside = 1;
  if (atomic_load_explicit(&hrace__full_active, memory_order_relaxed))
    hrace__full_clear((uintptr_t)p, n);
  blk_t *b;
  if (hrace__pc_instrumented(pc) && (b = __libc_malloc(sizeof *b))) {
    *b = (blk_t){ n, pc, fn };
    struct shard *s = shard_of((uintptr_t)p);
    pthread_mutex_lock(&s->mu);
    blk_t *old = hrace_map_put(&s->m, (uintptr_t)p, b);
    pthread_mutex_unlock(&s->mu);
    if (old) __libc_free(old);
    else atomic_fetch_add_explicit(&nlive, 1, memory_order_relaxed);
  }
  inside = 0;
}

static void gone(void *p) {
  if (!p || !atomic_load_explicit(&nlive, memory_order_relaxed) || inside) return;
  inside = 1;
  struct shard *s = shard_of((uintptr_t)p);
  pthread_mutex_lock(&s->mu);
  blk_t *b = hrace_map_del(&s->m, (uintptr_t)p);
  pthread_mutex_unlock(&s->mu);
  if (b) {
    atomic_fetch_sub_explicit(&nlive, 1, memory_order_relaxed);
    __libc_free(b);
  }
  inside = 0;
}

#define RET HRACE_RET_ADDR()
HRACE_EXPORT void *INTERPOSE(malloc)(size_t n) {
  void *p = __libc_malloc(n);
  fresh(p, n, RET, "malloc");
  return p;
}
HRACE_EXPORT void *INTERPOSE(calloc)(size_t k, size_t n) {
  void *p = __libc_calloc(k, n);
  fresh(p, k * n, RET, "calloc");
  return p;
}
HRACE_EXPORT void *INTERPOSE(realloc)(void *q, size_t n) {
  if (q) gone(q);
  void *p = __libc_realloc(q, n);
  fresh(p, n, RET, "realloc");
  return p;
}
HRACE_EXPORT void INTERPOSE(free)(void *p) {
  gone(p);
  __libc_free(p);
}
HRACE_EXPORT int INTERPOSE(posix_memalign)(void **out, size_t align, size_t n) {
  if (!align || (align & (align - 1)) || align % sizeof(void *)) return EINVAL;
  void *p = __libc_memalign(align, n);
  if (!p) return ENOMEM;
  fresh(p, n, RET, "posix_memalign");
  *out = p;
  return 0;
}
HRACE_EXPORT void *INTERPOSE(aligned_alloc)(size_t align, size_t n) {
  void *p = __libc_memalign(align, n);
  fresh(p, n, RET, "aligned_alloc");
  return p;
}
HRACE_EXPORT void *INTERPOSE(memalign)(size_t align, size_t n) {
  void *p = __libc_memalign(align, n);
  fresh(p, n, RET, "memalign");
  return p;
}
HRACE_EXPORT void *INTERPOSE(valloc)(size_t n) {
  void *p = __libc_valloc(n);
  fresh(p, n, RET, "valloc");
  return p;
}

/* "malloc at f.c:12 (func)" for a call site, made once per site. */
static const char *label(const char *fn, uintptr_t pc) {
  static hrace_map_t labels = HRACE_MAP_INIT;
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&mu);
  const char *l = hrace_map_get(&labels, pc ^ (uintptr_t)fn);
  if (!l) {
    hrace_srcloc_t loc;
    char buf[512];
    const char *file = "??";
    int line = 0;
    const char *func = "??";
    if (hrace__symbolize(pc, &loc)) file = loc.file, line = loc.line, func = loc.func;
    const char *base = strrchr(file, '/');
    snprintf(buf, sizeof buf, "%s at %s:%d (%s)", fn, base ? base + 1 : file, line, func);
    l = strdup(buf);
    if (l) hrace_map_put(&labels, pc ^ (uintptr_t)fn, (void *)l);
    else l = fn;
  }
  pthread_mutex_unlock(&mu);
  return l;
}

bool hrace__alloc_find(uintptr_t addr, hrace_alloc_info_t *out) {
  if (!atomic_load_explicit(&nlive, memory_order_relaxed)) return false;
  blk_t found = { 0 };
  uintptr_t base = 0;
  int was = inside;
  inside = 1;
  for (int i = 0; i < SHARDS && !base; i++) {
    pthread_mutex_lock(&shards[i].mu);
    size_t it = 0;
    uint64_t k;
    void *v;
    while (hrace_map_next(&shards[i].m, &it, &k, &v)) {
      const blk_t *b = v;
      if (addr >= k && addr - k < (b->size ? b->size : 1)) {
        base = (uintptr_t)k;
        found = *b;
        break;
      }
    }
    pthread_mutex_unlock(&shards[i].mu);
  }
  inside = was;
  if (!base) return false;
  out->label = label(found.fn, found.pc);
  out->base = base;
  out->size = found.size;
  return true;
}
