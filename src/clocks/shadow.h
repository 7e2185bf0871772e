/* Shadow state of tracked memory (window locations) and the race check: WHB last-write clocks
 * plus the reads since that write (in FastTrack's compact form), per byte (docs/design.md,
 * "Shadow: per-byte cells referring to descriptors"; docs/access.md, "Window shadow: encoding").
 *
 * Cell = one 64-bit word per byte or run of bytes that share their state: the last write's
 * descriptor id, and the last read's id or a read set of up to HRACE_RSET_MAX concurrent
 * readers. Granularity follows the accesses (8 bytes, 4, or 1: shadow.c has the encoding and
 * its cost, 1 to 11 shadow bytes per byte). Changed under a lock per 4 KiB chunk (or, in a
 * chunk biased to one thread, by that thread with plain stores: shadow.c), so the
 * progress thread (remote records) and any number of application threads check the same
 * bytes; deciding that an access changes nothing takes no lock. An access that finds its own
 * id, or a plain access of its own thread and segment that stands for it, already recorded
 * writes nothing (the steady state of a loop; same-epoch elision in shadow.c). Hence a race
 * names the first code address of a segment that touched the bytes.
 *
 * A read is checked against the last write; a write against the last write and the reads.
 * Reads ordered before a newer read are dropped from the set (FastTrack), so the pairs reported
 * for one location are a subset of all racing pairs; every racy location is reported. */
#ifndef HRACE_CLOCKS_SHADOW_H
#define HRACE_CLOCKS_SHADOW_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "clocks/access.h"

#define HRACE_RSET_MAX 8

typedef struct hrace_shadow {
  _Atomic uint64_t *cells;   /* the region's shadow mapping (shadow.c), lazily backed */
  uint64_t size;             /* bytes covered */
  _Atomic uint32_t *locks;   /* a lock word per HRACE_SHADOW_CHUNK granules (shadow.c) */
  int biased;                /* chunks may be biased to a thread (hrace__shadow_init_biased) */
} hrace_shadow_t;

/* The steady state of a loop, for the access callbacks: does the 8 bytes at `off` (8-aligned,
 * inside the region) already say what access `id` would record there, its own write with no
 * read since or its own read? Then hrace__shadow_access would change and report nothing. Inline
 * because it is most of what a checked access costs (bench/access); it knows the granule word
 * format of shadow.c: one word per 8 bytes after a 64-byte header, the last write's id in bits
 * 32-61, the last read's in bits 0-31, tags in bits 62-63 (a summarized span's granule words
 * are 0, never steady here: the general path reads its summary). */
__attribute__((always_inline)) static inline int
hrace__shadow_steady8(const _Atomic uint64_t *granules, uint64_t off, hrace_aid_t id) {
  uint64_t v = atomic_load_explicit(&granules[off / 8], memory_order_acquire);
  return v == (uint64_t)id << 32 || (!(v >> 62) && (uint32_t)v == id);
}
/* The granule words of a region, for hrace__shadow_steady8 (stable for the region's life). */
static inline const _Atomic uint64_t *hrace__shadow_granules(const hrace_shadow_t *sh) {
  return sh->cells + 8;
}

/* A conflicting pair: `now` is the access being checked, `prev` the recorded one it races
 * with, over bytes [off, off + len) of the region (the union of the bytes where they met). */
typedef void (*hrace_race_sink_t)(void *ctx, hrace_aid_t now, hrace_aid_t prev,
                                  uint64_t off, uint64_t len);

int hrace__shadow_init(hrace_shadow_t *sh, uint64_t size);   /* 0 or -1 (errno) */
/* The same, with span summaries (shadow.c, "spans"): runs of 512 bytes that hold one state
 * are recorded once while range accesses keep them so. For windows, whose compute loops and
 * RMA operations cover whole rows; not for full mode's chunks (access/full.c writes granule
 * words itself). */
int hrace__shadow_init_spans(hrace_shadow_t *sh, uint64_t size);
/* The same, for full mode's chunks of all memory: a chunk (4 KiB of the region) that one
 * thread's single accesses (hrace__shadow_replace) find free and never shared becomes biased to
 * that thread, which then changes its cells with plain stores, no lock; any other thread that
 * wants the chunk takes back all of that thread's biases first, with one membarrier (shadow.c,
 * "Biased chunks"). */
int hrace__shadow_init_biased(hrace_shadow_t *sh, uint64_t size);
/* Biasing on (the default, where membarrier's private expedited command exists) or off, for
 * every biased shadow from now on (tests and measurements; chunks biased already stay so). */
void hrace__shadow_bias_set(int on);
/* Chunks biased and revocations so far (each takes back all of one thread's biases, with one
 * membarrier), in all shadows (tests and measurements). */
void hrace__shadow_bias_counts(uint64_t *biased, uint64_t *revoked);
/* The token chunk c of sh is biased to now (0: none; a bias revoked with its owner's
 * generation counts as none). Tests. */
uint32_t hrace__shadow_bias_owner(const hrace_shadow_t *sh, uint64_t c);
void hrace__shadow_free(hrace_shadow_t *sh);

/* Check access `id` over bytes [off, off+len) of the region against the recorded state, as
 * seen by an event whose clock is `view`, report each distinct conflicting predecessor once
 * through `sink`, and record the access. Bytes outside the region are ignored. */
void hrace__shadow_access(hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id,
                          const hrace_vc_t *view, hrace_race_sink_t sink, void *ctx);

/* The first touch of a granule in a segment, for single accesses (len 8 or 16, no other; off
 * 8-aligned, or it returns 0): checks and records access `id` as hrace__shadow_access would when it meets no race there and
 * the granules hold plain cells whose previous accesses are local, and returns 1; returns 0,
 * having changed nothing, when hrace__shadow_access must take it (which tries this first). */
int hrace__shadow_quick(hrace_shadow_t *sh, uint64_t off, uint64_t len, hrace_aid_t id,
                        const hrace_vc_t *view);

/* hrace__shadow_quick for an aligned 8-byte access at granule g (inside the region) whose
 * granule word reads 0, for a caller that read it (tsan.c's first touch): in a window's shadow
 * mostly a granule of a summarized span, whose state its summary or its span's exception
 * block holds (shadow.c, "spans"). */
int hrace__shadow_quick0(hrace_shadow_t *sh, uint64_t g, hrace_aid_t id, const hrace_vc_t *view);

/* The first-touch path's memo (shadow.c), for a caller that tries its first way inline before
 * hrace__shadow_quick: an entry {v, next, l, id} of hrace__shadow_memo[id % HRACE_SHADOW_MEMO]
 * says that access id, seen from the view whose local part is l (a thread context's: its
 * local and global parts live together, and both only grow), leaves a plain granule word v as
 * next (v itself: it stands for the access already). Such an answer holds for good, and the
 * descriptor sweep keeps the ids an entry names (hrace__shadow_mark_answers). */
typedef struct hrace_shadow_memo {
  uint64_t v, next;
  const hrace_vc_t *l;
  hrace_aid_t id;
} hrace_shadow_memo_t;
#define HRACE_SHADOW_MEMO 64
extern __thread hrace_shadow_memo_t hrace__shadow_memo[HRACE_SHADOW_MEMO][2]
    __attribute__((tls_model("initial-exec")));
/* Granules [g, g + k) of the region (k 1 or 2) all hold v, which a memo entry turns into next:
 * store next there under their chunk's lock if they still hold v and the lock is free, and
 * return 1; else return 0, having changed nothing (hrace__shadow_quick decides). */
int hrace__shadow_replace(hrace_shadow_t *sh, uint64_t g, unsigned k, uint64_t v, uint64_t next);

/* Biased chunks (shadow.c, "Biased chunks"): a chunk lock word that says
 * HRACE_SHADOW_LK_BIAS | generation | token is held for good by the thread of that token while
 * the generation is the thread's current one (its word `gen` below: bits 1-17 the generation,
 * bit 0 set while another thread revokes all of the thread's biases); the thread works on the
 * chunk's cells while its sequence word `w` is odd. */
#define HRACE_SHADOW_CHUNK 512                /* granules per chunk lock */
#define HRACE_SHADOW_LK_BIAS 0x80000000u
#define HRACE_SHADOW_LK_GEN 0x1FFFF800u       /* the word's bits for gen's bits 0-17 */
#define HRACE_SHADOW_LK_GEN_SHIFT 11
#define HRACE_SHADOW_NSEQ 2048                /* tokens that may bias: bits 0-10 of the word */
typedef struct hrace_shadow_seq {
  _Alignas(64) _Atomic uint32_t w;            /* odd while the thread works on a biased chunk */
  _Atomic uint32_t gen;                       /* its generation, << 1; bit 0: being revoked */
} hrace_shadow_seq_t;
typedef struct hrace_shadow_self {
  uint32_t token;                             /* 0 until the thread first locks a chunk */
  /* The bias word of the thread's last bias (~0u, a word no lock holds, before its first) and
   * its generation word then: the owner's fast path compares these, its generation word read
   * again after the sequence word is odd (hrace__shadow_replace_own). */
  uint32_t mine, gen;
  hrace_shadow_seq_t *seq;                    /* its words (NULL: it biases nothing) */
} hrace_shadow_self_t;
extern __thread hrace_shadow_self_t hrace__shadow_self __attribute__((tls_model("initial-exec")));

/* The lock word of a chunk biased to token `me` under its generation word g (as read): a word
 * no chunk holds while g is odd (bit 11 is never set in a lock word's bias). */
static inline uint32_t hrace__shadow_bias_word(uint32_t me, uint32_t g) {
  return HRACE_SHADOW_LK_BIAS | ((g << HRACE_SHADOW_LK_GEN_SHIFT) & HRACE_SHADOW_LK_GEN) | me;
}

/* hrace__shadow_replace's commonest case inline, for full mode's callbacks: granules of a
 * chunk biased to the calling thread take plain stores, no atomic read-modify-write (the
 * protocol's owner side, as bias_enter / bias_leave in shadow.c do it). 1: stored; 0: the
 * granules no longer hold v, nothing stored; -1: the chunk is not biased to this thread (or is
 * being revoked), nothing stored: hrace__shadow_replace decides. */
__attribute__((always_inline)) static inline int
hrace__shadow_replace_own(hrace_shadow_t *sh, uint64_t g, unsigned k, uint64_t v, uint64_t next) {
  _Atomic uint32_t *const l = sh->locks + g / HRACE_SHADOW_CHUNK;
  hrace_shadow_seq_t *const sq = hrace__shadow_self.seq;
  /* Read once, as a pair (a signal handler may bias a chunk, and set both, meanwhile). */
  const uint32_t mine = hrace__shadow_self.mine, gen = hrace__shadow_self.gen;
  if (__builtin_expect(!sq, 0) ||
      __builtin_expect(atomic_load_explicit(l, memory_order_relaxed) != mine, 0) ||
      (k == 2 && (g + 1) % HRACE_SHADOW_CHUNK == 0))
    return -1;
  const uint32_t s = atomic_load_explicit(&sq->w, memory_order_relaxed);
  if (s & 1) return -1;                         /* inside such work already: a signal handler */
  atomic_store_explicit(&sq->w, s + 1, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst);    /* a full fence with the revoker's membarrier */
  int r = -1;
  /* The word was this thread's bias word under generation word gen; is that still its
   * generation, read after the sequence word is odd? The revoker changes it before its
   * membarrier, and nobody else changes a word biased to this thread without revoking first
   * (shadow.c, "Biased chunks"). */
  if (__builtin_expect(atomic_load_explicit(&sq->gen, memory_order_relaxed) == gen, 1)) {
    _Atomic uint64_t *const gw = sh->cells + 8 + g;
    r = atomic_load_explicit(&gw[0], memory_order_relaxed) == v &&
        (k == 1 || atomic_load_explicit(&gw[1], memory_order_relaxed) == v);
    if (r) {
      atomic_store_explicit(&gw[0], next, memory_order_release);
      if (k == 2) atomic_store_explicit(&gw[1], next, memory_order_release);
    }
  }
  atomic_store_explicit(&sq->w, s + 2, memory_order_release);
  return r;
}
/* hrace__shadow_replace, trying hrace__shadow_replace_own first. */
static inline int hrace__shadow_replace_fast(hrace_shadow_t *sh, uint64_t g, unsigned k,
                                             uint64_t v, uint64_t next) {
  const int r = hrace__shadow_replace_own(sh, g, k, v, next);
  return r >= 0 ? r : hrace__shadow_replace(sh, g, k, v, next);
}

/* Pages of granule words given back so far (a window shadow's chunk whose spans are all
 * summarized: shadow.c, span_release), in all shadows (tests and measurements). */
uint64_t hrace__shadow_released(void);
/* Exception blocks a span shadow has handed out (tests and measurements). */
uint64_t hrace__shadow_exc_blocks(const hrace_shadow_t *sh);

/* Shadow in use, for benchmarks and tests: granule words of the region (one per 8 bytes,
 * resident only where touched), and blocks of 2 and of 8 cells handed out to finer granules. */
void hrace__shadow_usage(const hrace_shadow_t *sh, uint64_t *words, uint64_t *blocks2,
                         uint64_t *blocks8);

/* Forget everything recorded over [off, off+len) (memory detached or reused). */
void hrace__shadow_clear(hrace_shadow_t *sh, uint64_t off, uint64_t len);
/* Declare [off, off+len) a synchronisation variable (a flag the user annotated as a resource,
 * docs/rma.md, "Annotations"): what was recorded there is forgotten, and later accesses are neither
 * checked nor recorded, as for a lock word. Undone by hrace__shadow_clear. */
void hrace__shadow_mark_sync(hrace_shadow_t *sh, uint64_t off, uint64_t len);

/* The descriptor sweep (clocks/access.h), with every thread that could change a cell stopped:
 * between hrace__access_sweep_begin and _end, hrace__shadow_sweep_begin, then
 * hrace__shadow_mark for every shadow there is (it marks each descriptor id its cells hold,
 * read sets included), then hrace__shadow_sweep_end, which gives back the read sets no cell
 * holds (returns how many; shadows not walked must hold none). Each thread's same-epoch
 * answers name ids too: hrace__shadow_thread_answers gives the calling thread's (at its
 * registration: access/sweep.c), hrace__shadow_mark_answers marks the ids they name. */
bool hrace__shadow_sweep_begin(void);
void hrace__shadow_mark(const hrace_shadow_t *sh);
uint32_t hrace__shadow_sweep_end(void);
const void *hrace__shadow_thread_answers(void);
void hrace__shadow_mark_answers(const void *answers);
/* Keep the ids a granule word names (a memo answer kept elsewhere: access/thread.h's aids). */
void hrace__shadow_mark_word(uint64_t v);
#endif
