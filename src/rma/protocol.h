/* Messages between an origin and a target's progress thread, on hrace's own communicator
 * (hrace__proc.ctl). All requests travel with tag HRACE_TAG_CTL, so MPI's non-overtaking rule
 * (MPI-3.1 Sec. 3.5) delivers an origin's operation records before its later completion or
 * unlock message: the target applies them in issue order. Replies go to the requesting
 * thread's own tag.
 *
 *   message    from -> to              carries                        reply
 *   OP         origin -> target        op, ranges, issue clock, site  none
 *   COMPLETE   origin -> target        completion epoch               ACK once applied
 *   LOCK       origin -> target        lock type                      GRANT + release clock
 *   UNLOCK     origin -> target        lock type, completion, clock   ACK once applied
 *   STOP       self -> own progress    -                              none
 *
 * The ACKs are the delivery invariant of DESIGN.md: an origin does not return from a
 * completing call (unlock, flush, fence) before the target has applied the records, so any
 * event ordered after the completion finds them in the target's shadow. */
#ifndef HRACE_RMA_PROTOCOL_H
#define HRACE_RMA_PROTOCOL_H
#include <stdint.h>
#include "clocks/vc.h"

#define HRACE_TAG_CTL 1

enum hrace_msg_type {
  HRACE_MSG_OP = 1, HRACE_MSG_COMPLETE, HRACE_MSG_LOCK, HRACE_MSG_UNLOCK, HRACE_MSG_STOP,
  HRACE_MSG_GRANT, HRACE_MSG_ACK,
};

typedef struct hrace_msg {
  uint32_t type;               /* enum hrace_msg_type */
  uint32_t win;                /* window id */
  int32_t origin;              /* world rank of the sender */
  int32_t thread;              /* sender's thread number */
  int32_t reply_tag;           /* where to send the reply */
  uint32_t lock_type;          /* LOCK / UNLOCK: HRACE_LOCK_SHARED or HRACE_LOCK_EXCL */
  uint16_t op, flags;          /* OP: hrace_op label, HRACE_ACC_* flags */
  uint32_t atomic_class;       /* OP: accumulate-family class (0: plain) */
  hrace_clk_t complete;        /* COMPLETE / UNLOCK: the origin's epoch at completion */
  uint32_t nranges;            /* OP: number of (offset, length) byte ranges that follow */
  uint32_t vc_n;               /* entries of the clock that follows the ranges */
  int32_t line;                /* OP: source line of the call */
  uint32_t func_len, file_len; /* OP: lengths (with NUL) of the strings after the clock */
  uint64_t disp;               /* OP: target displacement (units of the target's disp_unit) */
} hrace_msg_t;
/* Followed by: uint64_t ranges[2 * nranges] (byte offsets relative to disp * disp_unit, and
 * lengths), hrace_clk_t vc[vc_n], char func[func_len], char file[file_len]. */

/* Build / send / parse. */
void *hrace__msg_pack(const hrace_msg_t *h, const uint64_t *ranges, const hrace_vc_t *vc,
                      const char *func, const char *file, int *bytes);
/* Points into buf; returns 0 on success, -1 if the message is malformed. */
int hrace__msg_unpack(void *buf, int bytes, hrace_msg_t **h, uint64_t **ranges, hrace_clk_t **vc,
                      const char **func, const char **file);

/* Origin side: send a request to `target`'s progress thread; with a reply type, wait for it
 * and join the clock it carries (GRANT) into `got` if not NULL. */
void hrace__ctl_send(int target, const hrace_msg_t *h, const uint64_t *ranges,
                     const hrace_vc_t *vc, const char *func, const char *file);
void hrace__ctl_wait_reply(int target, uint32_t type, hrace_vc_t *got);

/* The progress thread. */
void hrace__progress_start(void);
void hrace__progress_stop(void);
#endif
