/* Copies made by the MPI library's own code (see mpicode.c). */
#ifndef HRACE_CORE_MPICODE_H
#define HRACE_CORE_MPICODE_H
#include <stdatomic.h>
#include <stdint.h>

/* Does code address pc lie in a module of the MPI stack (libmpi, libmpich, UCX, libfabric,
 * Open MPI's components, ...)? */
int hrace__pc_in_mpi(uintptr_t pc);
/* Does code address pc lie in libhrace itself? */
int hrace__pc_in_self(uintptr_t pc);
/* Modules built for hrace (their constructor called __tsan_init from pc): the application
 * code whose pthread synchronisation hrace models (core/pthread.c); MPI's and libomp's own
 * locking, and hrace's, is not. */
void hrace__module_instrumented(uintptr_t pc);
/* Inline: every pthread lock operation of the process asks (Open MPI's, under
 * MPI_THREAD_MULTIPLE, several per message). */
extern struct hrace_code_range { uintptr_t lo, hi; } hrace__inst[];
extern _Atomic int hrace__ninst;
static inline int hrace__pc_instrumented(uintptr_t pc) {
  int n = __atomic_load_n((int *)&hrace__ninst, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n; i++)
    if (pc - hrace__inst[i].lo < hrace__inst[i].hi - hrace__inst[i].lo) return 1;
  return 0;
}

/* The application's code address of the MPI call whose wrapper returns to `pc`: pc itself, or,
 * when pc is in the MPI library (a Fortran binding that calls the C symbol), the first frame
 * of the stack outside the MPI library and libhrace. Two compares when the caller is in the
 * main executable. */
extern uintptr_t hrace__exe_lo, hrace__exe_hi;   /* the main executable's code */
extern uintptr_t hrace__exe_bias;                /* its load bias (mpi/msgrace.h sites) */
uintptr_t hrace__caller_slow(uintptr_t pc);
static inline uintptr_t hrace__caller(uintptr_t pc) {
  if (__builtin_expect(pc - hrace__exe_lo < hrace__exe_hi - hrace__exe_lo, 1)) return pc;
  return hrace__caller_slow(pc);
}
#endif
