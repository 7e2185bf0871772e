/* Unit tests of src/clocks/exporter: a slot that becomes shared while its first owner is in the
 * middle of a run of publications (MPI calls with nothing else changing its local clock).
 *
 * The owner's run is stored as one history entry that implies every later publication of the
 * run; a thread that arrives when all slots are held shares the last one, and its publications
 * must be numbered after the run's last one, with a snapshot that keeps the owner's knowledge at
 * that publication. Before the fix the sharer numbered its publication right after the run's
 * first entry, inside the run: a receiver that had heard the owner's later publication then found
 * the sharer's snapshot, which knew only the run's start, and the owner's accesses looked
 * unordered (a false race: case-shared-slot/hyb_tail_threads_norace, 1 run in ~14 on MPICH).
 * A threaded check repeats the pattern with the two threads really concurrent. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clocks/exporter.h"
#include "clocks/vc.h"
#include "tap.h"

/* Local clock of a process with two threads (local entries 0 and 1). */
static void local(hrace_vc_t *l, hrace_clk_t a, hrace_clk_t b) {
  hrace__vc_init(l, 2);
  l->c[0] = a, l->c[1] = b;
}

/* A global clock that knows exporter e at k (one process: e is the slot). */
static void global(hrace_vc_t *g, uint32_t e, hrace_clk_t k) {
  hrace__vc_init(g, 2);
  g->c[e] = k;
}

/* The owner (thread 0, local entry 0) publishes k = 1..5 on the only slot; its local entry
 * ticks with each publication, so 2..5 continue the run of 1. Thread 1 then arrives, shares the
 * slot and publishes. A receiver of the owner's publication 5 must cover the owner's access made
 * at local time 5 (just before it), and must not cover one made after it. */
static void sequential(bool multi) {
  hrace__exporters_init(0, 1, 1, multi);
  hrace_clk_t pub0 = 1;
  uint32_t e0 = hrace__exporter_of(0, &(hrace_vc_t){ 0 }, &pub0);
  is_int(0, e0, "multi=%d: the owner gets slot 0", multi);
  hrace_vc_t l0;
  for (hrace_clk_t k = 1; k <= 5; k++) {
    local(&l0, k, 0);
    hrace_clk_t kk = k;
    hrace__exporter_snapshot(e0, &kk, &l0, 0);
    is_int(k, kk, "multi=%d: the owner's publication %u keeps its number", multi, (unsigned)k);
    hrace__vc_free(&l0);
  }
  hrace_vc_t l1;
  local(&l1, 0, 3);
  hrace_clk_t pub1 = 1;
  uint32_t e1 = hrace__exporter_of(1, &l1, &pub1);
  is_int(0, e1, "multi=%d: the second thread shares slot 0", multi);
  hrace_clk_t k1 = pub1;
  hrace__exporter_snapshot(e1, &k1, &l1, 1);
  ok(k1 > 5, "multi=%d: the sharer's publication (%u) is numbered after the owner's last (5)",
     multi, (unsigned)k1);
  hrace_vc_t g;
  global(&g, e0, 5);
  ok(hrace__exporters_cover(0, 5, &g), "multi=%d: the owner's access before its publication 5 is "
     "covered by a receiver of 5", multi);
  ok(!hrace__exporters_cover(0, 6, &g), "multi=%d: the owner's access after it is not", multi);
  ok(!hrace__exporters_cover(1, 3, &g), "multi=%d: the sharer's access is not covered by the "
     "owner's earlier publication", multi);
  hrace__vc_free(&g);
  global(&g, e0, k1);
  ok(hrace__exporters_cover(1, 3, &g), "multi=%d: a receiver of the sharer's publication covers "
     "its access", multi);
  ok(hrace__exporters_cover(0, 5, &g), "multi=%d: ... and the owner's accesses before its last "
     "publication (the shared slot joins them)", multi);
  hrace__vc_free(&g);
  hrace__vc_free(&l1);
}

/* Two threads publish on one shared-able slot at once, each ticking its own local entry; the
 * first arrives before the second. Afterwards every publication a thread recorded must be
 * covered at its number: a receiver of thread t's publication k covers t's access at the local
 * time it had then. Publications are numbered in one increasing sequence per slot. */
enum { ROUNDS = 20000 };
static hrace_clk_t got[2][ROUNDS];   /* the number each publication went out with */
static _Atomic int started;

static void *publisher(void *arg) {
  int tid = (int)(intptr_t)arg;
  hrace_vc_t l;
  hrace__vc_init(&l, 2);
  if (tid == 1)
    while (atomic_load(&started) < 100) {}
  hrace_clk_t pub = 1;
  uint32_t e = hrace__exporter_of(tid, &l, &pub);
  for (int i = 0; i < ROUNDS; i++) {
    l.c[tid] = (hrace_clk_t)i + 1;   /* the access just before publication i */
    hrace_clk_t k = pub;
    hrace__exporter_snapshot(e, &k, &l, (uint32_t)tid);
    got[tid][i] = k;
    pub = k + 1;
    if (tid == 0) atomic_fetch_add(&started, 1);
  }
  hrace__vc_free(&l);
  return NULL;
}

static void threaded(void) {
  hrace__exporters_init(0, 1, 1, 1);
  pthread_t t[2];
  for (intptr_t i = 0; i < 2; i++) pthread_create(&t[i], NULL, publisher, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  int bad = 0, order = 0;
  for (int tid = 0; tid < 2; tid++)
    for (int i = 0; i < ROUNDS; i++) {
      hrace_vc_t g;
      global(&g, 0, got[tid][i]);
      if (!hrace__exporters_cover((uint32_t)tid, (hrace_clk_t)i + 1, &g)) bad++;
      hrace__vc_free(&g);
      if (i && got[tid][i] <= got[tid][i - 1]) order++;
    }
  is_int(0, bad, "concurrent owner and sharer: every publication covers its thread's access");
  is_int(0, order, "each thread's publications are numbered in increasing order");
}

/* Each scenario in a child process of its own: the exporter registry is set up once per
 * process (hrace__exporters_init keeps slots already in use, as it must at MPI_Init). */
static int in_child(void (*scenario)(void), int checks) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    scenario();
    fflush(stdout);
    _exit(tap_failed);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  tap_n += checks;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void sequential_threads(void) { sequential(true); }

int main(void) {
  plan(13 + 2);
  int failed = in_child(sequential_threads, 13);
  failed += in_child(threaded, 2);
  return failed;
}
