/* Windows as hrace sees them: identity agreed across the group, the local memory and its
 * shadow, the origin-side epoch state, and the target-side lock tokens, PSCW deposits and
 * pending operations.
 *
 * A window's local memory is one or more *segments*, each an hrace_win_t with its own shadow:
 * the window itself for create / allocate / allocate_shared (one segment: base, size), and one
 * child per MPI_Win_attach region of a dynamic window (the parent then has no memory). Every
 * segment is a tracked range of kind HRACE_TRACK_WINDOW whose owner is the segment's shadow
 * `cells`, which covers exactly [base, base + size): the access slow path (src/access) relies on
 * that, and reports find the segment from its shadow (core/hooks.h, hrace__segment_label_hook;
 * hrace__win_of_cells). */
#ifndef HRACE_RMA_WINDOW_H
#define HRACE_RMA_WINDOW_H
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include "base/compiler.h"
#include "base/map.h"
#include "clocks/shadow.h"
#include "clocks/vc.h"

enum hrace_win_kind { HRACE_WIN_CREATE, HRACE_WIN_ALLOCATE, HRACE_WIN_SHARED, HRACE_WIN_DYNAMIC };

/* Lock state of one origin on one target, as the origin tracks it (misuse checks). */
enum { HRACE_LOCK_NONE = 0, HRACE_LOCK_SHARED = 1, HRACE_LOCK_EXCL = 2 };

typedef struct hrace_pending {          /* an operation applied here, not yet completed */
  int origin;                           /* world rank */
  uint32_t aid;
} hrace_pending_t;

typedef struct hrace_waiter {           /* a lock request queued at this target */
  int origin, reply_tag, type;
} hrace_waiter_t;

typedef struct hrace_resource {         /* an annotated synchronisation location (annotate.c) */
  uint64_t off;                         /* byte offset in the window (absolute for dynamic) */
  hrace_vc_t vc;                        /* join of the clocks signalled to it */
  struct hrace_resource *next;
} hrace_resource_t;

typedef struct hrace_win {
  MPI_Win win;
  uint32_t id;                 /* equal on every member; unique among this process's windows */
  int kind;                    /* enum hrace_win_kind */
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm shadow;             /* dup of the window's communicator: clock exchanges */
  int gsize, grank;            /* size of the window group, our rank in it */
  int *world;                  /* group rank -> world rank */
  MPI_Group group;             /* the window's group (registered windows; else MPI_GROUP_NULL) */
  /* Local memory (this segment). */
  char *base;
  uint64_t size;
  int disp_unit;
  hrace_shadow_t cells;
  uintptr_t site;              /* the application's call that made it (MPI_Win_create, ...,
                                  MPI_Win_attach for a region): a return address; 0: unknown */
  struct hrace_win *parent;    /* attached region of a dynamic window: the window; else NULL */
  struct hrace_win *regions;   /* dynamic window: attached regions (children), linked by next */
  struct hrace_win *next;
  /* Every member's size and disp_unit (origin-side range checks; 0 / 1 for dynamic windows). */
  uint64_t *sizes;
  int *disp_units;
  /* Origin side (application threads, under omu). */
  pthread_mutex_t omu;
  int fence_epoch;             /* a fence opened an access epoch (and no NOSUCCEED closed it) */
  int lock_all;                /* inside lock_all */
  uint8_t *lock;               /* per group rank: HRACE_LOCK_* */
  uint8_t *dirty;              /* per group rank: operations issued since their last completion */
  uint8_t *start_group;        /* per group rank: in the current MPI_Win_start group */
  int started;                 /* inside a PSCW access epoch */
  /* What the target side of an epoch's operations is ordered after, beyond the issuing process's
   * clock: the target's post (PSCW, docs/rma.md "Synchronisation": post_vcs below) and the targets'
   * fence when a MPI_MODE_NOPRECEDE fence opened the epoch (MPI-3.1 Sec. 11.5.1: operations access
   * the target only after its fence, but that fence need not be a barrier). */
  hrace_vc_t fence_vc;
  int fence_view;              /* fence_vc applies */
  /* Fence generation: how many fences this process has completed on the window (written by
   * the fencing thread under the registry lock, read atomically by any thread: every message
   * about the window carries it, protocol.h). The target side counts the fence COMPLETEs of
   * the current generation it has applied (under the registry lock). */
  uint32_t fgen;
  uint32_t fence_got;
  MPI_Datatype fence_dt;       /* the fence's all-reduce element (epoch.c); MPI_DATATYPE_NULL
                                  until the first fence */
  /* Exposure side of PSCW (application threads). */
  uint8_t *post_group;         /* per group rank: in the current MPI_Win_post group */
  int posted;                  /* inside a PSCW exposure epoch */
  /* Deposits made by the progress thread under the registry lock (see hrace__win_wait). */
  unsigned *posts;             /* per group rank: MPI_Win_post messages not yet matched */
  hrace_vc_t *post_vcs;        /* per group rank: the clock of that post (allocated lazily) */
  uint32_t *post_ack;          /* per group rank: how many of our DONEs it had applied then */
  unsigned *dones;             /* per group rank: MPI_Win_complete messages not yet matched */
  hrace_vc_t done_vc;          /* join of their clocks */
  /* Target side (progress thread only, under the registry lock). */
  int holders_excl, holders_shared;
  hrace_waiter_t *waiters;
  unsigned nwaiters, capwaiters;
  hrace_vc_t rel_excl;         /* join of the exclusive unlocks: what a shared lock acquires */
  hrace_vc_t rel_all;          /* join of all unlocks: what an exclusive lock acquires */
  hrace_pending_t *pending;
  unsigned npending, cappending;
  hrace_map_t merge;           /* pending operations that later ones may share (progress.c,
                                  docs/rma.md "Long epochs"): descriptor fields -> aid */
  hrace_resource_t *resources;  /* annotated synchronisation locations (annotate.c) */
} hrace_win_t;

/* Is `call` valid in w's origin-side epoch state (lock, lock_all, dirty, started, posted)?
 * The table is in epoch.c; the wrappers of epoch.c and pscw.c diagnose what it refuses. */
enum hrace_epoch_call {
  HRACE_EC_LOCK, HRACE_EC_UNLOCK, HRACE_EC_LOCK_ALL, HRACE_EC_UNLOCK_ALL, HRACE_EC_FLUSH,
  HRACE_EC_FENCE_NOPRECEDE, HRACE_EC_POST, HRACE_EC_START, HRACE_EC_COMPLETE, HRACE_EC_WAIT,
};
enum hrace_epoch_verdict {
  HRACE_EV_OK,        /* valid */
  HRACE_EV_TARGET,    /* a target rank outside the window's group: left to MPI, no diagnostic */
  HRACE_EV_NESTED,    /* the epoch it opens is open already */
  HRACE_EV_NOT_OPEN,  /* no epoch of the kind it needs (ends, flushes) */
  HRACE_EV_PENDING,   /* fence(MPI_MODE_NOPRECEDE) with operations issued since the last fence */
};
int hrace__epoch_check(const hrace_win_t *w, int call, int target);

/* The segment whose shadow is `cells` (a tracked range's owner, a race sink's ctx). */
static inline hrace_win_t *hrace__win_of_cells(const hrace_shadow_t *cells) {
  return HRACE_CONTAINER_OF(cells, hrace_win_t, cells);
}
/* The call that makes windows of this kind ("MPI_Win_allocate", ...): reports name it. */
const char *hrace__win_creator(int kind);
/* Register a window just created collectively over comm (call from the creating wrapper,
 * on every member, after the PMPI call succeeded). Exchanges clocks all-to-all. */
/* The application's call that makes the next window (hrace__win_register) or region
 * (hrace__win_attach) on this thread: a return address, which reports name (docs/report-format.md). */
void hrace__win_site(uintptr_t pc);
hrace_win_t *hrace__win_register(MPI_Win win, MPI_Comm comm, int kind, void *base,
                                 MPI_Aint size, int disp_unit);
/* The window of an application handle, or NULL (not created through hrace). */
hrace_win_t *hrace__win_of(MPI_Win win);
/* Lookup by agreed id (target side; caller holds the registry lock). */
hrace_win_t *hrace__win_by_id(uint32_t id);
/* Before PMPI_Win_free: all-to-all clock exchange, unregister, free. */
void hrace__win_unregister(hrace_win_t *w);
/* The registry below the collective parts of register / unregister (the unit tests drive it
 * with windows made by hand): the id this process proposes for its next window (the members
 * agree on the largest proposal); insert a window under its agreed id (later proposals exceed
 * it); remove one, with its tracked memory and every region attached to it (the window's own
 * shadow and arrays stay the caller's). */
uint32_t hrace__win_propose_id(void);
void hrace__win_insert(hrace_win_t *w);
void hrace__win_remove(hrace_win_t *w);
/* Dynamic windows: a region attached / detached locally. */
void hrace__win_attach(hrace_win_t *w, void *base, MPI_Aint size);
int hrace__win_detach(hrace_win_t *w, const void *base);   /* 0, or -1: not attached */
/* The segment of w holding bytes [off, off + len) (absolute addresses for dynamic windows),
 * with *rel set to the offset inside it; NULL if no segment holds all of them. Caller holds
 * the registry lock. */
hrace_win_t *hrace__win_segment(hrace_win_t *w, uint64_t off, uint64_t len, uint64_t *rel);
/* Set the name of the window and its segments. */
void hrace__win_set_name(hrace_win_t *w, const char *name);
/* The registry lock; the progress thread holds it while applying a message. */
void hrace__win_lock(void);
void hrace__win_unlock(void);
/* With the registry lock held: wait until the progress thread has applied another message
 * (it broadcasts after each), or `ms` milliseconds passed. Returns 0, or ETIMEDOUT. */
int hrace__win_wait(long ms);
void hrace__win_broadcast(void);
/* w's fence generation (see fgen), for a message about w. */
static inline uint32_t hrace__win_fgen(const hrace_win_t *w) {
  return __atomic_load_n(&w->fgen, __ATOMIC_RELAXED);
}
/* Group rank -> world rank (MPI_PROC_NULL stays). */
static inline int hrace__win_world(const hrace_win_t *w, int grank) {
  return grank >= 0 && grank < w->gsize ? w->world[grank] : -1;
}
/* World rank -> group rank, or -1. */
int hrace__win_group_rank(const hrace_win_t *w, int world);
/* Group ranks of an MPI group (PSCW) as flags per window group rank; returns the number of
 * members, or -1 if one is not in the window's group (*bad: its rank in g). */
int hrace__win_group_flags(const hrace_win_t *w, MPI_Group g, uint8_t *flags, int *bad);
#endif
