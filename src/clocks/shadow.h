/* Shadow state of tracked memory (window locations) and the race check: WHB last-write clocks
 * (seed 004's T_LastWrite) plus the reads since that write (seed 002's access clock, in
 * FastTrack's compact form), per byte.
 *
 * Cell = one 64-bit word per byte of tracked memory: high half the last write's descriptor id,
 * low half the last read's id, or (top bit set) a read set of up to HRACE_RSET_MAX concurrent
 * readers. Updated with CAS, so the progress thread (remote records) and any number of
 * application threads check the same bytes without a lock; an access that finds its own id
 * already recorded writes nothing (the steady state of a loop).
 *
 * A read is checked against the last write; a write against the last write and the reads.
 * Reads ordered before a newer read are dropped from the set (FastTrack), so the pairs reported
 * for one location are a subset of seed 004's race set; every racy location is reported. */
#ifndef HRACE_CLOCKS_SHADOW_H
#define HRACE_CLOCKS_SHADOW_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "clocks/access.h"

#define HRACE_RSET_MAX 8

typedef struct hrace_shadow {
  _Atomic uint64_t *cells;   /* one per byte; lazily backed (MAP_NORESERVE) */
  uint64_t size;             /* bytes covered */
} hrace_shadow_t;

/* A conflicting pair: `now` is the access being checked, `prev` the recorded one it races
 * with, over bytes [off, off + len) of the region (the union of the bytes where they met). */
typedef void (*hrace_race_sink_t)(void *ctx, hrace_aid_t now, hrace_aid_t prev,
                                  uint64_t off, uint64_t len);

int hrace__shadow_init(hrace_shadow_t *sh, uint64_t size);   /* 0 or -1 (errno) */
void hrace__shadow_free(hrace_shadow_t *sh);

/* Check access `id` over bytes [off, off+len) of the region against the recorded state, as
 * seen by an event whose clock is `view`, report each distinct conflicting predecessor once
 * through `sink`, and record the access. Bytes outside the region are ignored. */
void hrace__shadow_access(hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id,
                          const hrace_vc_t *view, hrace_race_sink_t sink, void *ctx);

/* Forget everything recorded over [off, off+len) (memory detached or reused). */
void hrace__shadow_clear(hrace_shadow_t *sh, uint64_t off, uint64_t len);
#endif
