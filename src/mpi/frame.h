/* How clocks travel with point-to-point messages (docs/mpi.md, "Transport"): every message on
 * an application communicator is a frame, a header (hrace_hdr_t and the sender's clock
 * entries) followed by the application's data.
 *  - small messages (frame <= HRACE_FRAME_SMALL bytes) are packed into one buffer and sent as
 *    MPI_PACKED: one copy of a few bytes, one message;
 *  - large ones are sent without copying through a struct datatype {header bytes, count x
 *    type} at absolute addresses.
 * A receive does the same by its own buffer's capacity, independently of the sender: both
 * framings have the same byte stream, and MPI's type matching allows a message sent as
 * MPI_PACKED to be received with any type and vice versa (MPI-3.1 Sec. 4.2). The header
 * travels inside the message, so wildcards, out-of-order completion, cancellation, probes and
 * persistent requests need nothing special: the receive that gets the data gets its clock. */
#ifndef HRACE_MPI_FRAME_H
#define HRACE_MPI_FRAME_H
#include <mpi.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include "clocks/vc.h"
#include "core/proc.h"
#include "core/hb.h"

#define HRACE_FRAME_MAGIC 0x687263u     /* "hrc": the top 24 bits of a frame's first word */
#define HRACE_FRAME_SMALL 8192          /* bench/mpi: pack + copy beats a struct type below this */

/* CLOCK: the frame carries a clock (not sent from a nested, hrace-internal call). SYNC: a
 * synchronous-mode send. MORE: the sender's clock has non-zero entries beyond the frame's, in
 * a second message on the communicator's shadow (p2p.c, "the clock's tail"). FULL is never
 * sent: it marks a header the receiver completed with that tail (hrace__proc.clock_len
 * entries). */
enum { HRACE_HDR_CLOCK = 1, HRACE_HDR_SYNC = 2, HRACE_HDR_MORE = 4, HRACE_HDR_ENC = 8,
       HRACE_HDR_FULL = 0x80 };
/* ENC (option wire=epoch, docs/mpi.md "Clocks relative to a base"): the clock is not wire_len
 * words but a stream of hrace__vc_encode relative to a base (coll.c), in the frame's
 * hrace__wire_inline bytes, or with MORE in the tail message alone. */

/* 12 bytes and the clock: every byte counts at 8-byte messages (bench/README.md, "MPI"). The
 * entry count is not sent: every process has the same hrace__proc.wire_len (MPI_Init agrees on
 * it, hrace__runtime_mpi_init). */
typedef struct hrace_hdr {
  uint32_t word;             /* HRACE_FRAME_MAGIC << 8 | flags (HRACE_HDR_*) */
  uint32_t sync_id;          /* SYNC or MORE: the sender's id of this send, for the responder's
                              * answer and the tail's tag */
  uint32_t site;             /* the send's site: its caller chain (hrace__send_site, msgrace.h) */
  hrace_clk_t clk[];         /* the sender's clock at the send's start: wire_len entries */
} hrace_hdr_t;
_Static_assert(sizeof(hrace_hdr_t) == 12, "frame header layout is part of the wire format");
static inline unsigned hrace__hdr_flags(const hrace_hdr_t *h) { return h->word & 0xffu; }
/* Entries of the clock at h->clk. */
static inline uint32_t hrace__hdr_clock_n(const hrace_hdr_t *h) {
  return hrace__hdr_flags(h) & HRACE_HDR_FULL ? hrace__proc.clock_len : hrace__proc.wire_len;
}

/* Header bytes of every frame in this job (fixed at MPI_Init: all ranks agree): 12 and the
 * clock's inline bytes, 4 x wire_len with wire=dense, else at most HRACE_WIRE_INLINE. */
extern int hrace__hdr_bytes;
#define HRACE_WIRE_INLINE 64
extern int hrace__wire_inline;
/* wire=epoch, agreed by every rank at MPI_Init (p2p.c); and whether world collectives make
 * bases: wire=epoch and every rank makes one MPI call at a time (coll.c). */
extern int hrace__wire_epoch, hrace__wire_bases;

/* Bases (coll.c): the latest this process holds (its number, 0 if none, and its clock_len
 * entries at *v); the one numbered num, or NULL and in *newer the oldest held after it (NULL
 * if none); the bytes they take. Called by the application's MPI calls only, one at a time
 * whenever bases exist (coll.c). */
uint32_t hrace__base_latest(const hrace_clk_t **v);
const hrace_clk_t *hrace__base_find(uint32_t num, const hrace_clk_t **newer);
size_t hrace__base_bytes(void);

/* What the clocks cost on the wire, for the summary record (p2p.c, coll.c). */
typedef struct hrace_wire_stats {
  unsigned long msgs;          /* frames sent with a clock */
  unsigned long used;          /* the bytes their clocks needed: encoded, or dense and tail */
  unsigned long used_max;      /* the most one needed */
  unsigned long tails, tail_bytes;   /* second messages */
  unsigned long inline_bytes;  /* clock bytes in every frame (hrace__wire_inline) */
} hrace_wire_stats_t;
void hrace__p2p_stats(hrace_wire_stats_t *w);
void hrace__coll_counts(unsigned long *n, unsigned long *bytes);

/* A copy made inside hrace's wrappers. libhrace's memcpy interposer checks nothing at wrapper
 * depth > 0 (access/intercept.c), so short copies skip it: four of them per 4-byte send +
 * receive to self (two clocks out, the payload in and out) went 276 -> 257 ns. */
static inline void hrace__copy(void *dst, const void *src, size_t n) {
  if (n > 64) {
    memcpy(dst, src, n);
    return;
  }
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (; n >= 8; n -= 8, d += 8, s += 8) {
    uint64_t x;
    __builtin_memcpy(&x, s, 8);
    __builtin_memcpy(d, &x, 8);
  }
  if (n >= 4) {
    uint32_t x;
    __builtin_memcpy(&x, s, 4);
    __builtin_memcpy(d, &x, 4);
    n -= 4, d += 4, s += 4;
  }
  while (n--) *d++ = *s++;
}

/* The byte count of a receive's status, as PMPI_Get_count(st, MPI_BYTE) gives it (MPI_UNDEFINED
 * above INT_MAX), read in place where the implementation's status layout is known: the call
 * was 82 instructions on MPICH (callgrind, 2-rank ping-pong), on the latency path of every
 * receive. */
static inline int hrace__status_bytes(const MPI_Status *st) {
#if defined(MPICH_VERSION)
  long long n = (long long)((unsigned long long)((unsigned)st->count_hi_and_cancelled >> 1) << 32) +
                (unsigned)st->count_lo;
  return n > INT_MAX ? MPI_UNDEFINED : (int)n;
#elif defined(OPEN_MPI)
  return st->_ucount > INT_MAX ? MPI_UNDEFINED : (int)st->_ucount;
#else
  int got = 0;
  PMPI_Get_count(st, MPI_BYTE, &got);
  return got;
#endif
}

/* PMPI_Test_cancelled, read in place likewise (every completed non-blocking receive asks).
 * Other MPIs: the PMPI calls. */
static inline int hrace__status_cancelled(const MPI_Status *st) {
#if defined(MPICH_VERSION)
  return st->count_hi_and_cancelled & 1;
#elif defined(OPEN_MPI)
  return st->_cancelled != 0;
#else
  int c = 0;
  PMPI_Test_cancelled(st, &c);
  return c;
#endif
}

/* A clock payload: the caller's signal clock as hrace__clock_len() entries (posted receives'
 * snapshots; frames use hrace__signal_clock_wire). */
static inline void hrace__clock_out(hrace_clk_t *dst) { hrace__signal_clock_out(dst); }
#endif
