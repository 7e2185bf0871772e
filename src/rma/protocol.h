/* Messages between an origin and a target's progress thread, on hrace's own connections
 * (core/chan.h). All requests from a process to a target travel on one connection, so an
 * origin's operation records arrive before its later completion or unlock message: the target
 * applies them in issue order. Replies go to the requesting thread's own tag.
 *
 *   message    from -> to              carries                          reply
 *   OP         origin -> target        op, ranges, issue clock, site    none
 *   COMPLETE   origin -> target        completion epoch                 ACK once applied, or
 *                                                                       none (HRACE_NO_REPLY:
 *                                                                       flush, fence)
 *   LOCK       origin -> target        lock type                        GRANT + release clock
 *   UNLOCK     origin -> target        lock type, completion, clock     none (HRACE_NO_REPLY)
 *   POST       target -> origin        the post's clock, the DONEs from none (deposited)
 *                                          the origin applied here (PSCW)
 *   DONE       origin -> target        completion epoch, clock (PSCW)   none (deposited), or
 *                                                                       ACK once applied
 *                                                                       (several targets)
 *   FWD        q -> owner p            q's loads / stores into p's      none
 *                                      shared-memory segment, q's clock
 *   PING       any -> any              -                                ACK (all before it applied)
 *   PSIG       signaller -> waiter     tag, clock (annotation)          none (deposited)
 *   RSIG       signaller -> owner      resource offset / length, clock  ACK once deposited
 *   RWAIT      waiter -> owner         resource offset / length         GRANT + resource clock
 *   STOP       self -> own progress    -                                none
 *
 * The delivery invariant (docs/design.md, "Remote accesses"): any event ordered after a
 * completion finds the completed records in the target's shadow. An ACK keeps it by making
 * the origin wait in the completing call; most completions keep it without waiting. A
 * PSCW complete to a single target sends DONE unacknowledged too: the target's MPI_Win_wait
 * joins its clock only once applied, and the origin's later publications ping the target
 * unless the target's next post said it applied it (pscw.c). A flush
 * to another process sends its COMPLETE with reply_tag HRACE_NO_REPLY and does not wait; the next
 * publication of the origin's clock pings the target instead (ops.c, hrace__rma_complete_remote:
 * only that publication can order anything after the completion there); it goes quiet (no
 * doorbell), and the target's own next flush applies it unless the ping or its progress thread
 * comes first (epoch.c, hrace__chan_serve_quiet). So does an unlock of
 * one target; an unlock_all acknowledges COMPLETEs to the targets with records first (epoch.c,
 * release). Records of
 * operations a process targets at itself, and forwarded accesses, are followed by a PING before the
 * caller goes on (see rma.h and shared.h for why).
 *
 * A fence's COMPLETEs go out unacknowledged too, and the fence's own clock all-reduce carries
 * how many each target is to expect (epoch.c, fence_exchange): a target applies its expected
 * COMPLETEs (reading its channel itself) before its MPI_Win_fence returns. Members that left
 * the fence earlier may reach the target before that; every message about a window carries
 * the sender's fence generation on it (fgen), and a target holds back a message from a later
 * generation than its own, and every later message of that sender, until it has left its
 * fence (progress.c, "Fence generations"; docs/rma.md, "Synchronisation"). */
#ifndef HRACE_RMA_PROTOCOL_H
#define HRACE_RMA_PROTOCOL_H
#include <stdint.h>
#include "clocks/vc.h"


enum hrace_msg_type {
  HRACE_MSG_OP = 1, HRACE_MSG_COMPLETE, HRACE_MSG_LOCK, HRACE_MSG_UNLOCK, HRACE_MSG_STOP,
  HRACE_MSG_GRANT, HRACE_MSG_ACK, HRACE_MSG_POST, HRACE_MSG_DONE, HRACE_MSG_FWD,
  HRACE_MSG_PING, HRACE_MSG_PSIG, HRACE_MSG_RSIG, HRACE_MSG_RWAIT,
};

enum { HRACE_NO_REPLY = 0 };   /* reply_tag of a request that wants no reply (reply tags are
                                  HRACE_CHAN_REPLY and above, core/chan.h) */

typedef struct hrace_msg {
  uint32_t type;               /* enum hrace_msg_type */
  uint32_t win;                /* window id (0: none) */
  int32_t origin;              /* world rank of the sender */
  int32_t thread;              /* sender's thread number */
  uint32_t exporter;           /* OP: the issuing thread's clock entry; COMPLETE / UNLOCK /
                                  DONE: the completing thread's (clocks/exporter.h) */
  int32_t reply_tag;           /* where to send the reply */
  uint32_t lock_type;          /* LOCK / UNLOCK: HRACE_LOCK_SHARED or HRACE_LOCK_EXCL */
  uint16_t op, flags;          /* OP: hrace_op label, HRACE_ACC_* flags */
  uint32_t atomic_class;       /* OP: accumulate-family class (0: plain) */
  hrace_clk_t complete;        /* COMPLETE / UNLOCK / DONE: the origin's epoch at completion;
                                  POST: DONEs from the receiver applied at the sender */
  int32_t tag;                 /* PSIG: the annotation's tag */
  uint32_t nranges;            /* number of (offset, length) byte ranges that follow */
  uint32_t vc_n;               /* entries of the clock that follows the ranges */
  int32_t line;                /* OP / DONE: source line of the call */
  uint32_t func_len, file_len; /* lengths (with NUL) of the strings after the clock */
  uint32_t blob_len;           /* FWD: bytes of per-access data after the strings */
  uint64_t disp;               /* OP: target displacement (units of the target's disp_unit) */
  uint32_t epoch;              /* OP: the kind of access epoch it was issued in (rma.h) */
  uint32_t fgen;               /* about a window: how many fences the sender had completed on
                                  it when it sent this (hrace_win_t.fgen); the target holds
                                  back what a later fence sent until it has left that fence */
} hrace_msg_t;

/* COMPLETE flags (h.flags): sent by a fence (fence_complete, epoch.c) without a reply; the
 * target counts it against what the fence's collective said to expect. */
enum { HRACE_COMPLETE_FENCE = 1 };
/* Followed by: uint64_t ranges[2 * nranges] (OP: byte offsets relative to disp * disp_unit,
 * and lengths), hrace_clk_t vc[vc_n], char func[func_len], char file[file_len],
 * char blob[blob_len]. */

/* FWD: per forwarded access, one range (offset in the owner's segment, length) and this.
 * The blob is: uint32_t nviews, uint32_t view_len, hrace_clk_t views[nviews][view_len] (the
 * accessing threads' global clocks), hrace_fwd_meta_t meta[nranges], then the accesses'
 * sites (hrace__site_pack: each distinct one once). */
typedef struct hrace_fwd_meta {
  uint32_t exporter;           /* the accessing thread's clock entry ... */
  hrace_clk_t epoch;           /* ... and its value at the access */
  uint32_t view;               /* index of the thread's clock at the access */
  int32_t thread;
  uint16_t flags, op;
  uint32_t atomic_class;
  uint32_t site, site_len;     /* the access's packed site with its caller chain: offset and
                                  length in the blob's site part */
} hrace_fwd_meta_t;

/* Build / send / parse. */
void *hrace__msg_pack(const hrace_msg_t *h, const uint64_t *ranges, const hrace_vc_t *vc,
                      const char *func, const char *file, const void *blob, int *bytes);
/* Points into buf; returns 0 on success, -1 if the message is malformed. */
int hrace__msg_unpack(void *buf, int bytes, hrace_msg_t **h, uint64_t **ranges, hrace_clk_t **vc,
                      const char **func, const char **file, const char **blob);

/* Origin side: send a request to `target`'s progress thread (world rank). Messages are
 * delivered in order per sender. Accesses this process forwarded to `target` (shared.h) are
 * sent first, so that they stay in order with the request. */
void hrace__ctl_send(int target, const hrace_msg_t *h, const uint64_t *ranges,
                     const hrace_vc_t *vc, const char *func, const char *file);
void hrace__ctl_send_blob(int target, const hrace_msg_t *h, const uint64_t *ranges,
                          const hrace_vc_t *vc, const char *func, const char *file,
                          const void *blob);
/* As hrace__ctl_send, for a POST, or a DONE that wants no reply: only the target's thread
 * waiting for the deposit needs it soon (its MPI_Win_start / MPI_Win_wait reads the channel
 * itself, pscw.c), and every later request from this process rings anyway, so the target's
 * progress thread is not woken for it while nobody there waits (core/chan.h,
 * hrace__chan_send_quiet). */
void hrace__ctl_send_quiet(int target, const hrace_msg_t *h, const hrace_vc_t *vc);
/* As hrace__ctl_send_quiet, for a flush's unacknowledged COMPLETE: only the ping before this
 * process's next clock publication needs it applied, and the ping rings; the target's own
 * flushes apply it meanwhile (epoch.c, hrace__chan_serve_quiet). One in eight rings anyway
 * (core/chan.h, hrace__chan_send_served). */
void hrace__ctl_send_served(int target, const hrace_msg_t *h);
/* Wait for this thread's reply of `type` from `target`; join the clock it carries (GRANT)
 * into `got` if not NULL. */
void hrace__ctl_wait_reply(int target, uint32_t type, hrace_vc_t *got);
/* Send PING to `target` and wait for its ACK: everything sent there before is applied. */
void hrace__ctl_ping(int target);
/* The fencing thread has raised a window's fence generation (epoch.c): handle the messages
 * held back for it (progress.c, "Fence generations") that may go now, in arrival order.
 * Caller holds the registry lock. */
void hrace__ctl_release_held(void);

#endif
