/* hrace's annotation API: synchronisation that MPI and OpenMP cannot show hrace (seed 001,
 * Sec. IV-F), such as polling on a flag in a window or a home-grown barrier.
 *
 * Process signal / wait: hrace_process_signal(rank, tag) publishes the caller's clock to world
 * rank `rank`; the next hrace_process_wait(origin, tag) there with the same origin and tag
 * blocks until that signal has arrived and orders the waiter after everything the signaller did
 * before signalling. Signals of one (origin, tag) pair are matched in order.
 *
 * Resource signal / wait: a resource is a location in a window (window, rank in the window's
 * group, displacement in that rank's disp_units; `size` bytes). hrace_resource_signal deposits
 * the caller's clock at the resource's owner (the join of all signals so far); a later
 * hrace_resource_wait orders the caller after every signal deposited before it. Naming a
 * resource also declares its bytes a synchronisation variable: accesses to them (the polling
 * loads, the put or store that sets the flag) are not checked from then on. Polling a flag:
 *
 *   rank 0 (writer)                              rank 1 (owner of `flag`, at disp 0)
 *   MPI_Put(data...); MPI_Win_flush(1, win);
 *   hrace_resource_signal(win, 1, 0, sizeof(int));
 *   MPI_Put(&one, ... flag ...); MPI_Win_flush(1, win);
 *                                                while (!flag) ...;   (or an atomic load)
 *                                                hrace_resource_wait(win, 1, 0, sizeof(int));
 *                                                use(data);
 *
 * Signal after the data is complete (flush) and before the flag is set: the waiter sees the
 * flag only after the signal was deposited.
 *
 * Programs that must build without hrace: define HRACE_VIA_PCONTROL before including this
 * header, and the calls become MPI_Pcontrol(level, ...) calls, which MPI ignores and hrace
 * (preloaded, or linked) interprets. */
#ifndef HRACE_H
#define HRACE_H
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Pcontrol levels: far from the 0 / 1 / 2 that profiling layers use. */
#define HRACE_PCONTROL_PROCESS_SIGNAL 0x48520001   /* (int rank, int tag) */
#define HRACE_PCONTROL_PROCESS_WAIT 0x48520002     /* (int rank, int tag) */
#define HRACE_PCONTROL_RESOURCE_SIGNAL 0x48520003  /* (MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size) */
#define HRACE_PCONTROL_RESOURCE_WAIT 0x48520004    /* (MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size) */

#ifdef HRACE_VIA_PCONTROL
#define hrace_process_signal(rank, tag) \
  ((void)MPI_Pcontrol(HRACE_PCONTROL_PROCESS_SIGNAL, (int)(rank), (int)(tag)))
#define hrace_process_wait(rank, tag) \
  ((void)MPI_Pcontrol(HRACE_PCONTROL_PROCESS_WAIT, (int)(rank), (int)(tag)))
#define hrace_resource_signal(win, rank, disp, size)                                    \
  ((void)MPI_Pcontrol(HRACE_PCONTROL_RESOURCE_SIGNAL, (MPI_Win)(win), (int)(rank),      \
                      (MPI_Aint)(disp), (MPI_Aint)(size)))
#define hrace_resource_wait(win, rank, disp, size)                                      \
  ((void)MPI_Pcontrol(HRACE_PCONTROL_RESOURCE_WAIT, (MPI_Win)(win), (int)(rank),        \
                      (MPI_Aint)(disp), (MPI_Aint)(size)))
#else
void hrace_process_signal(int rank, int tag);
void hrace_process_wait(int rank, int tag);
void hrace_resource_signal(MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size);
void hrace_resource_wait(MPI_Win win, int rank, MPI_Aint disp, MPI_Aint size);
#endif

#ifdef __cplusplus
}
#endif
#endif
