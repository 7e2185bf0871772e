/* Is a memcpy / memmove / memset called from the MPI library's own code? Such copies are MPI
 * moving data (an RMA operation applied at its target, a message unpacked), not the
 * application's accesses: hrace models them as operations. Inside an MPI call the wrappers'
 * depth already says so; but MPICH's UCX device also applies other ranks' puts from a signal
 * handler that interrupts the application anywhere (found by running the suite on MPICH:
 * false races against `ucp_put_handler`). So a copy whose caller lies in a module of the MPI
 * stack is skipped wherever it runs.
 *
 * Modules are classified by file name on first sight and cached by address range; only
 * copies that touch tracked memory get here (the cold path of access/intercept.c). Core, not
 * access: core/pthread.c asks which module a lock call comes from, mpi/ which frame made an
 * MPI call. */
#include "core/mpicode.h"
#include "report/report.h"

#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

typedef struct mod { uintptr_t lo, hi; int mpi; } mod_t;

#define MAX_MODS 128
static mod_t mods[MAX_MODS];
static _Atomic int nmods;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The MPI implementation and the transport / runtime libraries under it. */
static int mpi_name(const char *path) {
  static const char *const parts[] = {
    "/libmpi", "/libmpich", "/libucp", "/libuct", "/libucs", "/libucm", "/libfabric",
    "/libpsm", "/libopen-pal", "/libopen-rte", "/libpmix", "/libpmi", "/openmpi/", "/mca_",
    "/libhcoll", "/libmca_",
  };
  for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
    if (strstr(path, parts[i])) return 1;
  return 0;
}

typedef struct want { uintptr_t pc; mod_t found; int ok; } want_t;

static int find(struct dl_phdr_info *info, size_t size, void *arg) {
  want_t *w = arg;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD) continue;
    uintptr_t a = info->dlpi_addr + p->p_vaddr;
    if (a < lo) lo = a;
    if (a + p->p_memsz > hi) hi = a + p->p_memsz;
  }
  if (w->pc < lo || w->pc >= hi) return 0;
  w->found = (mod_t){ lo, hi, info->dlpi_name && mpi_name(info->dlpi_name) };
  w->ok = 1;
  return 1;
}

int hrace__pc_in_mpi(uintptr_t pc) {
  int n = atomic_load_explicit(&nmods, memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (pc >= mods[i].lo && pc < mods[i].hi) return mods[i].mpi;
  want_t w = { .pc = pc };
  dl_iterate_phdr(find, &w);
  if (!w.ok) return 0;
  pthread_mutex_lock(&mu);
  n = atomic_load_explicit(&nmods, memory_order_relaxed);
  if (n < MAX_MODS) {
    mods[n] = w.found;
    atomic_store_explicit(&nmods, n + 1, memory_order_release);
  }
  pthread_mutex_unlock(&mu);
  return w.found.mpi;
}

/* ---- the application's call site of an MPI call --------------------------------------------- */
uintptr_t hrace__exe_lo, hrace__exe_hi, hrace__exe_bias;

static int find_exe(struct dl_phdr_info *info, size_t size, void *data) {
  for (int i = 0; i < info->dlpi_phnum; i++) {   /* the first object is the main program */
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
    if (!hrace__exe_lo || lo < hrace__exe_lo) hrace__exe_lo = lo;
    if (hi > hrace__exe_hi) hrace__exe_hi = hi;
  }
  hrace__exe_bias = info->dlpi_addr;
  return 1;
}

/* At load: the main program is mapped before any library's constructor runs. */
__attribute__((constructor)) static void know_exe(void) { dl_iterate_phdr(find_exe, NULL); }

int hrace__pc_in_self(uintptr_t pc) {
  static uintptr_t lo, hi;
  if (!hi) {
    want_t w = { .pc = (uintptr_t)&hrace__pc_in_self };
    dl_iterate_phdr(find, &w);
    lo = w.found.lo, hi = w.found.hi;
  }
  return pc >= lo && pc < hi;
}

uintptr_t hrace__caller_slow(uintptr_t pc) {
  if (!hrace__pc_in_mpi(pc)) return pc;
  /* Called through the MPI library's own code (MPICH's Fortran bindings call the C symbols):
   * the first frame outside it and outside libhrace is the application's. */
  void *frames[24];
  int n = backtrace(frames, 24);
  for (int i = 0; i < n; i++) {
    uintptr_t f = (uintptr_t)frames[i];
    if (!hrace__pc_in_self(f) && !hrace__pc_in_mpi(f)) return f;
  }
  return pc;
}

/* ---- instrumented modules --------------------------------------------------------------------- */
#define MAX_INST 64
struct hrace_code_range hrace__inst[MAX_INST];
_Atomic int hrace__ninst;

static unsigned instrumented_modules(void) {
  return (unsigned)atomic_load_explicit(&hrace__ninst, memory_order_acquire);
}

void hrace__module_instrumented(uintptr_t pc) {
  if (hrace__pc_instrumented(pc)) return;
  want_t w = { .pc = pc };
  dl_iterate_phdr(find, &w);
  if (!w.ok) return;
  pthread_mutex_lock(&mu);
  int n = atomic_load_explicit(&hrace__ninst, memory_order_relaxed);
  if (n < MAX_INST) {
    hrace__inst[n] = (struct hrace_code_range){ w.found.lo, w.found.hi };
    atomic_store_explicit(&hrace__ninst, n + 1, memory_order_release);
  }
  pthread_mutex_unlock(&mu);
  hrace__report_set_instrumented(instrumented_modules);
}
