/* hrace's own MPI traffic inside the application's calls: private communicators made at
 * MPI_Init, and polling waits that name themselves when they stall. */
#ifndef HRACE_CORE_POLL_H
#define HRACE_CORE_POLL_H
#include <mpi.h>

/* A communicator of parent's members for hrace's own use, made at MPI_Init (collective over
 * parent). Not MPI_Comm_dup: Open MPI 4.1 agrees on a dup's context id with a non-blocking
 * allreduce of coll/libnbc, whose progress callback then stays registered for the run, about
 * 20 instructions in every opal_progress() of a program that never asked for it (callgrind:
 * 21 per call, ~380000 calls in a 20000-message ping-pong). MPI_Comm_create_group agrees with
 * point-to-point messages instead. */
int hrace__comm_private(MPI_Comm parent, int tag, MPI_Comm *out);
/* Wait for a request of hrace's own by polling (MPI_Test, then yielding the core between
 * tries: ranks may outnumber cores, and the peer may need one to progress). If it is not done
 * after 10 s, late(arg) is called once, to name the wait rather than hang silently; the wait
 * goes on. Returns MPI_Test's error, if any. */
int hrace__poll_wait(MPI_Request *r, MPI_Status *st, void (*late)(const void *), const void *arg);
#endif
