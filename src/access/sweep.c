/* The threads' descriptor caches, for the sweep (see sweep.h). */
#include "access/sweep.h"

#include <stdatomic.h>

#include "access/thread.h"
#include "clocks/access.h"
#include "clocks/shadow.h"
#include "core/thread.h"

/* Where a thread keeps ids: thread.h's aids, the runtime's descriptor cache, shadow.c's
 * same-epoch answers. Not malloc'ed: the first access of a thread registers it. */
typedef struct caches {
  const hrace_athread_t *at;
  const hrace_thread_t *rt;
  const void *answers;
} caches_t;
#define MAX_THREADS 4096
static caches_t all[MAX_THREADS];
static _Atomic unsigned nall;

__thread bool hrace__sweep_seen __attribute__((tls_model("initial-exec")));

void hrace__sweep_thread_begins(void) {
  if (hrace__sweep_seen) return;   /* its first MPI call came before its first access */
  hrace__sweep_seen = true;
  unsigned i = atomic_fetch_add(&nall, 1);
  if (i >= MAX_THREADS) {
    hrace__access_thread_begins(NULL);   /* unseen: no sweep runs from now on */
    return;
  }
  caches_t *c = &all[i];
  c->at = &hrace__at;
  c->rt = hrace__thread();
  c->answers = hrace__shadow_thread_answers();
  hrace__access_thread_begins(c);
}

static void mark(void *owner) {
  const caches_t *c = owner;
  if (!c->at || !c->rt) return;   /* a thread registering now: nothing cached yet */
  for (unsigned k = 0; k < sizeof c->at->aids / sizeof c->at->aids[0]; k++) {
    hrace__access_mark(c->at->aids[k].aid);
    hrace__shadow_mark_word(c->at->aids[k].mv);      /* its memo answer (thread.h) */
    hrace__shadow_mark_word(c->at->aids[k].mnext);
  }
  for (unsigned k = 0; k < HRACE_CACHE; k++) hrace__access_mark(c->rt->cache[k].id);
  hrace__shadow_mark_answers(c->answers);
}

void hrace__sweep_mpi_thread(void) { hrace__sweep_thread_begins(); }

void hrace__sweep_mark_threads(void) { hrace__access_threads_each(mark); }

bool hrace__sweep_may_run(void) { return hrace__self_ready && hrace__self.tid >= 0; }
