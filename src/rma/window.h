/* Windows as hrace sees them: identity agreed across the group, the local memory and its
 * shadow, the origin-side epoch state and the target-side lock tokens and pending operations. */
#ifndef HRACE_RMA_WINDOW_H
#define HRACE_RMA_WINDOW_H
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
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

typedef struct hrace_win {
  MPI_Win win;
  uint32_t id;                 /* equal on every member; unique among this process's windows */
  int kind;                    /* enum hrace_win_kind */
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm shadow;             /* dup of the window's communicator: clock exchanges */
  int gsize, grank;            /* size of the window group, our rank in it */
  int *world;                  /* group rank -> world rank */
  /* Local memory. */
  char *base;
  uint64_t size;
  int disp_unit;
  hrace_shadow_t cells;
  /* Origin side (application threads). */
  int fence_epoch;             /* a fence opened an access epoch (and no NOSUCCEED closed it) */
  int lock_all;                /* inside lock_all */
  uint8_t *lock;               /* per group rank: HRACE_LOCK_* */
  uint8_t *dirty;              /* per group rank: operations issued since their last completion */
  /* Target side (progress thread only). */
  int holders_excl, holders_shared;
  hrace_waiter_t *waiters;
  unsigned nwaiters, capwaiters;
  hrace_vc_t rel_excl;         /* join of the exclusive unlocks: what a shared lock acquires */
  hrace_vc_t rel_all;          /* join of all unlocks: what an exclusive lock acquires */
  hrace_pending_t *pending;
  unsigned npending, cappending;
} hrace_win_t;

/* Register a window just created collectively over comm (call from the creating wrapper,
 * on every member, after the PMPI call succeeded). Exchanges clocks all-to-all. */
hrace_win_t *hrace__win_register(MPI_Win win, MPI_Comm comm, int kind, void *base,
                                 MPI_Aint size, int disp_unit);
/* The window of an application handle, or NULL (not created through hrace). */
hrace_win_t *hrace__win_of(MPI_Win win);
/* Lookup by agreed id (target side; caller holds the registry lock). */
hrace_win_t *hrace__win_by_id(uint32_t id);
/* Before PMPI_Win_free: all-to-all clock exchange, unregister, free. */
void hrace__win_unregister(hrace_win_t *w);
/* The registry lock; the progress thread holds it while applying a message. */
void hrace__win_lock(void);
void hrace__win_unlock(void);
/* Group rank -> world rank (MPI_PROC_NULL stays). */
static inline int hrace__win_world(const hrace_win_t *w, int grank) {
  return grank >= 0 && grank < w->gsize ? w->world[grank] : -1;
}
#endif
