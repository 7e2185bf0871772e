/* In-flight RMA buffers at the origin (docs/rma.md, "The model"): from issue to
 * local completion an operation reads its origin buffer (put, accumulate, the compare buffer)
 * or writes it (get, result buffers). While in flight the buffer is a tracked range (filter.h,
 * kind HRACE_TRACK_BUFFER), so loads and stores by any thread of the origin are checked against
 * it; the next operation to use the same memory is checked at its issue.
 *
 * The owner of every HRACE_TRACK_BUFFER range starts with an int tag: HRACE_BUF_OP for an
 * operation's buffer (here), HRACE_BUF_PEER for another process's segment of a shared-memory
 * window as mapped in this process (shared.h), whose loads and stores are forwarded to it. */
#ifndef HRACE_RMA_BUFFERS_H
#define HRACE_RMA_BUFFERS_H
#include <stdint.h>

enum { HRACE_BUF_OP = 0x4f50, HRACE_BUF_PEER = 0x5045 };

/* Accesses inside a tracked buffer range reach buffers.c through access/filter.h's
 * hrace__buffer_access_hook, which it registers at load. */

struct hrace_win;
struct hrace_rma_call;
struct hrace_srcloc;
/* An operation was issued: check its buffers against the operations still in flight, record
 * the bytes that lie in this process's own windows in their shadow, track the rest, and watch
 * its request (request-based operations). */
void hrace__buffers_issue(const struct hrace_rma_call *c, const struct hrace_srcloc *site);
/* Local completion of the caller's operations on w to `target` (group rank; -1: all). */
void hrace__buffers_complete(struct hrace_win *w, int target);
/* Defined in ops.c: a completion (or a window's end) happened; the calls cached as repeats
 * of one still in flight are stale (docs/rma.md, "Repeated operations"). */
void hrace__rma_dup_reset(void);
/* The window is being freed: whatever is still in flight is forgotten. */
void hrace__buffers_window_gone(struct hrace_win *w);
#endif
