/* Copies made by the MPI library's own code (see mpicode.c). */
#ifndef HRACE_ACCESS_MPICODE_H
#define HRACE_ACCESS_MPICODE_H
#include <stdint.h>

/* Does code address pc lie in a module of the MPI stack (libmpi, libmpich, UCX, libfabric,
 * Open MPI's components, ...)? */
int hrace__pc_in_mpi(uintptr_t pc);
/* Does code address pc lie in libhrace itself? */
int hrace__pc_in_self(uintptr_t pc);

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
