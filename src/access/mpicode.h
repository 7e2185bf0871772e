/* Copies made by the MPI library's own code (see mpicode.c). */
#ifndef HRACE_ACCESS_MPICODE_H
#define HRACE_ACCESS_MPICODE_H
#include <stdint.h>

/* Does code address pc lie in a module of the MPI stack (libmpi, libmpich, UCX, libfabric,
 * Open MPI's components, ...)? */
int hrace__pc_in_mpi(uintptr_t pc);
#endif
