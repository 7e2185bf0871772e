/* Exporters: the threads of this process that have published their clock to other processes
 * (made an MPI synchronisation call), and what each knew locally at each publication.
 *
 * Index space of the global clock part: entry e = rank + nprocs * slot, where slot numbers the
 * exporting threads of a rank (0 for the first, usually the initial thread); a slot passes from
 * thread to thread at OpenMP barriers (hrace__exporter_release), so a rank needs as many slots
 * as threads that call MPI with no barrier between them. A program whose MPI calls come from
 * one thread per rank therefore has exactly one entry per rank. Entries are dense (fixed length
 * nprocs * slots, slot j of every rank forming layer j); a point-to-point frame carries the
 * first layer and the rest only when non-zero (docs/mpi.md, "The clock's tail"), and blocking
 * collectives exchange further layers only when a member's clock needs them (coll.c, "Layers");
 * see docs/design.md.
 *
 * A snapshot (k, L) says: when exporter e published with its entry at k, its thread's local
 * clock was L. Two uses:
 *  - cover: a local access (thread u, local time c) happened before an event with global clock
 *    G iff some exporter e of this process has a snapshot (k, L) with k <= G[e] and c <= L[u];
 *  - recall: a clock that comes back to this process (G[e] = k for its own e) brings back the
 *    local knowledge L of e's latest snapshot at or below k. */
#ifndef HRACE_CLOCKS_EXPORTER_H
#define HRACE_CLOCKS_EXPORTER_H
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "clocks/vc.h"

/* rank / nprocs of this process; `slots` exporters per rank (>= 1); `threads`: threads other
 * than the first may call MPI (a thread level above MPI_THREAD_FUNNELED), so the last slot may
 * become shared while its owner publishes, and its publications are recorded under its mutex
 * (exporter.c, append_lockstep). Below that level a second MPI-calling thread is the program's
 * error; it shares the slot as well, approximately. Before this is called (no MPI yet) every
 * thread is exporter index of slot 0 of rank 0 with nprocs 1. */
void hrace__exporters_init(int rank, int nprocs, int slots, bool threads);
/* Length of the global clock part: nprocs * slots. */
uint32_t hrace__exporters_len(void);
/* The global entry of local thread `tid`, whose context's local clock is l, assigning it a
 * slot on first use: a slot another thread released in l's past (hrace__exporter_release; *published
 * is raised to the slot's next value), else a new one. When all slots are held, further threads
 * share the last slot (orderings between them are then over-approximated; a warning says so
 * once). */
uint32_t hrace__exporter_of(int tid, const hrace_vc_t *l, hrace_clk_t *published);
/* The calling thread gives up its slot e at an OpenMP barrier: `next` is the value its next
 * publication would have had (completions may be stamped with it), (idx, time) its context's
 * local entry and time before the barrier. A thread that passed the barrier may take it:
 * threads that call MPI one after another, ordered by barriers (MPI inside `omp single`), then
 * use one slot instead of one each, and their messages carry no tail (docs/design.md). */
void hrace__exporter_release(uint32_t e, hrace_clk_t next, uint32_t idx, hrace_clk_t time);
/* Record that exporter e published with entry value *k while its local clock was l, running in
 * the context whose local entry is `own`. Called by the exporter's own thread, once per
 * publication, before the clock leaves the process. On a slot shared by several threads *k may
 * be raised (their publications are numbered in one sequence) and the snapshot joins the one
 * before it. Returns true when e's history is this thread's alone: then a later publication
 * (k + i, l with l[own] + i and nothing else changed) is implied by the history as it stands,
 * and the caller may skip the call for it while hrace__exporters_gen is unchanged. Never true
 * for the last slot of a process whose threads may all call MPI: each of its publications is
 * recorded, so a thread that starts sharing it numbers its own after them. */
bool hrace__exporter_snapshot(uint32_t e, hrace_clk_t *k, const hrace_vc_t *l, uint32_t own);
/* Bumped by hrace__exporters_init (entries renumbered) and when a slot becomes shared. */
extern _Atomic unsigned hrace__exporters_gen;
/* Is the local access (tid, c) covered by a snapshot that the global clock g knows of? */
bool hrace__exporters_cover(uint32_t tid, hrace_clk_t c, const hrace_vc_t *g);
/* Join into l the local knowledge that g carries about this process's exporters, where g knows
 * an exporter further than `known` (the receiver's global part before the join) does. Every
 * context's local part already holds the snapshot of each entry its global part knows (waits
 * recall it, acquires join both parts, an exporter's own local part holds its snapshots), so
 * entries g knows no further than `known` bring nothing: a ping-pong takes no lock here.
 * Returns whether l may have changed. */
bool hrace__exporters_recall(const hrace_vc_t *g, const hrace_vc_t *known, hrace_vc_t *l);
#endif
