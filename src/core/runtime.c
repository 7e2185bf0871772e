/* Process and thread state, the process clock's signal / wait, and per-segment access
 * descriptors (see runtime.h). */
#include "core/runtime.h"

#include <stdatomic.h>
#include <stdio.h>
#include "core/log.h"
#include "core/options.h"

hrace_proc_t hrace__proc = { .rank = -1 };

static const char *const op_names[] = {
#define X(e, s) s,
  HRACE_OPS(X)
#undef X
};

const char *hrace__op_name(unsigned op) { return op < HRACE_OP_COUNT ? op_names[op] : "access"; }

/* Initial-exec TLS: the per-access path reaches it with one %fs-relative load. */
static __thread hrace_thread_t self __attribute__((tls_model("initial-exec"), aligned(64)));
static __thread bool self_ready __attribute__((tls_model("initial-exec")));
static _Atomic int next_tid;

hrace_thread_t *hrace__thread(void) {
  if (HRACE_UNLIKELY(!self_ready)) {
    self.tid = atomic_fetch_add(&next_tid, 1);
    self.reply_tag = 1000 + self.tid;
    self_ready = true;
  }
  return &self;
}

void hrace__runtime_init(void) { hrace__options_init(); }

/* The initial thread takes tid 0 before any other thread can exist. */
__attribute__((constructor)) static void runtime_ctor(void) {
  hrace__thread();
  hrace__runtime_init();
}

static void dump(const char *what, const char *why) {
  if (!hrace__opt.dump_clocks) return;
  char buf[512];
  dprintf(2, "hrace: rank %d: clock %s at %s: %s\n", hrace__proc.rank, what, why,
          hrace__vc_format(&hrace__proc.vc, buf, sizeof buf));
}

void hrace__signal_done(const char *why) {
  dump("signal", why);
  hrace__vc_tick(&hrace__proc.vc, (uint32_t)hrace__proc.rank);
}

void hrace__wait(const hrace_clk_t *c, uint32_t n, const char *why) {
  hrace__vc_join_raw(&hrace__proc.vc, c, n);
  dump("wait", why);
}

hrace_aid_t hrace__local_access(uintptr_t pc, uint16_t flags, uint16_t op, uint32_t atomic_class) {
  hrace_thread_t *t = hrace__thread();
  hrace_clk_t epoch = hrace__thread_epoch();
  unsigned slot = (unsigned)((pc >> 2) ^ flags) & (HRACE_CACHE - 1);
  if (t->cache[slot].pc == pc && t->cache[slot].epoch == epoch && t->cache[slot].flags == flags &&
      t->cache[slot].id)
    return t->cache[slot].id;
  hrace_access_t a = {
    .exporter = hrace__thread_exporter(), .flags = flags, .op = op,
    .atomic_class = atomic_class, .rank = hrace__proc.rank, .thread = t->tid, .pc = pc,
  };
  atomic_init(&a.clk, epoch);
  hrace_aid_t id = hrace__access_new(&a);
  t->cache[slot].pc = pc;
  t->cache[slot].epoch = epoch;
  t->cache[slot].flags = flags;
  t->cache[slot].id = id;
  return id;
}
