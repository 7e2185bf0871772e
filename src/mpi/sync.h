/* Clock exchanges over communicators: the collective patterns of docs/mpi.md, "Collectives". Each
 * runs on a shadow communicator (a dup of the application's), never on the application's own, so
 * hrace's messages cannot match the application's. */
#ifndef HRACE_MPI_SYNC_H
#define HRACE_MPI_SYNC_H
#include <mpi.h>
#include <stdint.h>

/* All-to-all: every member's clock reaches every other member (barrier, allreduce, window
 * creation and free, fence). `extra` values are max-reduced along (e.g. agreeing on an id). */
void hrace__sync_all(MPI_Comm shadow, uint32_t *extra, int nextra, const char *why);
/* The shadow communicator of an application communicator (made with it: comm.h), or
 * MPI_COMM_NULL if hrace does not know comm. */
MPI_Comm hrace__comm_shadow(MPI_Comm comm);
#endif
