/* hrace's own messages between processes (docs/design.md, "hrace's own traffic"): operation
 * records, lock tokens, acknowledgements, synchronous-send queries. They travel on channels of
 * hrace's own, not on MPI, so that hrace's progress thread makes no MPI calls and the
 * application keeps the MPI thread level it asked for (MPI_THREAD_MULTIPLE alone costs Open MPI
 * about 56 ns per message; bench/README.md).
 *
 * Every process listens on a Unix socket (abstract namespace) and, when some peer runs on
 * another host, a TCP socket; the addresses are exchanged once, in MPI_Init. A process opens
 * two connections to a peer lazily: one for requests from the application's threads (writes
 * serialised per peer, so one thread's requests arrive in issue order and every request
 * arrives in the order the writes were made), one for the progress thread's replies. To a peer
 * of the same host, each connection's messages go through a shared-memory ring in the peer's
 * inbox and its socket carries only doorbells, written when no thread of the peer looks at its
 * rings (chan.c). The progress thread reads, and so may a thread waiting inside a call
 * (hrace__chan_help), one at a time: requests go to the handler, replies to a mailbox where the
 * requesting thread waits. Replies are small and bounded by the requests waiting for them, so a
 * progress thread never blocks on a full socket or ring and two of them cannot deadlock. */
#ifndef HRACE_CORE_CHAN_H
#define HRACE_CORE_CHAN_H
#include <stddef.h>
#include <stdint.h>

enum {
  HRACE_CHAN_CTL = 1,     /* requests to the RMA protocol (rma/protocol.h) */
  HRACE_CHAN_SYNCQ = 2,   /* synchronous-send queries (mpi/posted.h) */
  HRACE_CHAN_SITEQ = 3,   /* the frames of a send's site, for a message race (mpi/msgrace.h) */
  HRACE_CHAN_REPLY = 16,  /* tags from here on are replies, delivered to the mailbox */
};

/* In MPI_Init, on the initial thread, after PMPI_Init: listen, exchange addresses over
 * MPI_COMM_WORLD (collective). Returns 0, or -1 with a warning (hrace then checks nothing). */
int hrace__chan_init(void);
/* After hrace__chan_init: how many distinct hosts the job's ranks run on. */
int hrace__chan_hosts(void);
/* After the progress thread stopped: close everything. */
void hrace__chan_fini(void);

/* A request to peer's progress thread (any thread but the progress thread); two pieces, one
 * message. */
void hrace__chan_send(int peer, int32_t tag, const void *a, size_t na, const void *b, size_t nb);
/* A request that may wait in a buffer: it goes out with the next request to the same peer, at
 * the next hrace__chan_wait or hrace__chan_flush of any thread, or when 32 KiB wait. Only
 * for messages whose effect nobody waits for until a later request to that peer (operation
 * records, which a completion message always follows): one write per batch, not per
 * record. */
void hrace__chan_send_lazy(int peer, int32_t tag, const void *a, size_t na);
/* A request whose effect only a thread of the peer that waits for it needs soon (a PSCW POST
 * or DONE without reply: the deposit its MPI_Win_start / MPI_Win_wait takes, reading the
 * channel itself), and any later request from this process: through a shared-memory ring it
 * rings no doorbell unless a thread of the peer waits (hrace__chan_waiting) or the ring is
 * half full, so a peer that computes is not interrupted for it. Sockets wake the peer as
 * always. */
void hrace__chan_send_quiet(int peer, int32_t tag, const void *a, size_t na);
/* As hrace__chan_send_quiet, for a request that only a later request from this process needs
 * applied (a flush's unacknowledged COMPLETE: the ping before this process publishes its
 * clock), and which the peer's own flushes apply meanwhile (hrace__chan_serve_quiet); every
 * eighth to a peer rings as an ordinary request (chan.c, SERVED_BELL says why). */
void hrace__chan_send_served(int peer, int32_t tag, const void *a, size_t na);
/* The calling thread, inside an MPI call of the application's that holds no lock a request's
 * handler takes (an RMA flush: rma/epoch.c), handles what waits in this process's
 * shared-memory rings itself, as hrace__chan_help(1) would: the requests sent quiet and never
 * rung for (a flush's COMPLETE and its records, rma/ops.c) are applied there without a wake-up
 * of the progress thread. A look at each ring when they are empty (no lock, no system call);
 * does nothing if another thread reads. Returns whether anything was read. */
int hrace__chan_serve_quiet(void);
/* The calling thread starts (on) or stops waiting for the effect of a quiet request, and looks
 * at the channel itself (hrace__chan_help(1)) after this and before each sleep meanwhile. */
void hrace__chan_waiting(int on);
void hrace__chan_flush(void);
/* Open both connections to peer now, if they are not open (requests from this process, the
 * replies of this process's progress thread): the peer's progress thread accepts them in the
 * background, so a later request and its reply find them ready instead of waiting for two
 * accepts, one at each end (rma/window.c: a small window's members, at its creation). */
void hrace__chan_connect(int peer);
/* A reply from the progress thread to a waiting thread of peer. */
void hrace__chan_reply(int peer, int32_t tag, const void *buf, size_t n);
/* Block until the reply (peer, tag) arrives; returns it (malloc'd, caller frees). */
void *hrace__chan_wait(int peer, int32_t tag, size_t *n);

/* As hrace__chan_wait, and while it waits the caller reads and handles requests too
 * (hrace__chan_help(1)): for a caller that holds no lock a request's handler takes. */
void *hrace__chan_wait_help(int peer, int32_t tag, size_t *n);

/* The progress thread's loop: hands every request to fn (the buffer is valid during the
 * call only) until fn returns 0. */
typedef int (*hrace_chan_fn)(void *buf, size_t n, int src, int32_t tag);
void hrace__chan_serve(hrace_chan_fn fn);
/* A thread about to wait for something the progress thread would hand it (a reply, a
 * deposit) reads what has arrived itself, instead of waiting for the progress thread to be
 * woken and scheduled: one non-blocking look at the connections, and every complete message
 * there goes where the progress thread would send it (replies to the mailbox; with
 * `requests`, requests to serve's fn, on the calling thread: fn must then not return 0, and
 * the caller must hold no lock fn takes). Does nothing if the progress thread or another
 * helper is reading (never waits for one). Without `requests`, only connections that have
 * carried replies are read. Returns whether anything was read. docs/rma.md,
 * "Synchronisation", says why and what stays on the progress thread. */
int hrace__chan_help(int requests);
/* hrace__spin (core/spin.h) for a caller whose ready() reads the channel with
 * hrace__chan_help(requests): with `requests`, the thread counts meanwhile as a reader of this
 * process's shared-memory rings while its core is free, so that senders ring no doorbell (no
 * system call, and no wake-up of the progress thread for a message this thread reads itself). */
int hrace__chan_spin(int requests, int (*ready)(void *), void *arg, int64_t limit_ns);
/* Let MPI progress once (a probe that matches nothing), for a thread inside an MPI call that
 * waits for hrace: a peer's MPI call may need this process inside MPI (MPICH). */
void hrace__chan_poke(void);
#endif
