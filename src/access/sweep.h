/* The access layer's part of the descriptor sweep (clocks/access.h): each thread that runs
 * instrumented code registers there as it starts, with the descriptor caches a sweep must mark
 * (docs/access.md, "Reclaiming descriptors"). */
#ifndef HRACE_ACCESS_SWEEP_H
#define HRACE_ACCESS_SWEEP_H

/* The calling thread starts running instrumented code (access/thread.c, once per thread). */
void hrace__sweep_thread_begins(void);
/* Mark the ids every registered thread's descriptor caches hold. */
void hrace__sweep_mark_threads(void);
#endif
