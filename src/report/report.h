/* The report writer: one stream of race reports and misuse diagnostics per rank.
 * Text on stderr for people (option report_text), JSON lines in <report_dir>/rank-<R>.jsonl
 * for `hrace run` and tools (schema: docs/report-format.md), written as found so that a
 * crashing rank leaves them behind. Deduplicated per rank by (kind, both source locations);
 * counts are written at the end, or when a fatal signal ends the rank. */
#ifndef HRACE_REPORT_REPORT_H
#define HRACE_REPORT_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "report/symbolize.h"

#define HRACE_REPORT_FRAMES 8   /* frames of the short stack kept per side */

typedef struct hrace_report_side {
  const char *op;           /* "load", "store", "MPI_Put", "MPI_Get", "MPI_Accumulate", ... */
  int rank;                 /* world rank that made the access */
  int thread;               /* OpenMP thread number in that rank (0: initial thread) */
  hrace_srcloc_t loc;       /* where: resolved by whoever had the code address */
  unsigned nframes;         /* short stack, innermost first (frames[0].loc == loc); 0: loc only */
  hrace_frame_t frames[HRACE_REPORT_FRAMES];
  uint64_t offset, size;    /* byte range accessed, relative to the window's base at its owner */
  const char *sync;         /* the epoch / synchronisation region the access was made in, e.g.
                               "exclusive lock epoch on rank 1 (MPI_Win_lock at a.c:20)";
                               NULL: not known */
} hrace_report_side_t;

typedef struct hrace_report {
  const char *kind;         /* "remote" (RMA vs load/store), "rma-rma", "thread" (two threads
                               of one process), "local" (loads / stores of two processes in a
                               shared-memory window), "origin-buffer", "message" */
  const char *window;       /* window name (MPI_Win_set_name) or "win<N>"; NULL: not a window */
  int owner;                /* rank whose memory it is */
  uintptr_t base;           /* the window's base address at its owner (the buffer's, if no
                               window) */
  uintptr_t addr;           /* first byte both accesses touch, at the owner (0: not known) */
  hrace_datasym_t variable; /* the global variable holding addr (name NULL: none known) */
  const char *allocation;   /* the call that provided the memory holding addr when no variable
                               does ("MPI_Win_allocate", "MPI_Win_create", "malloc", ...);
                               NULL: not known */
  uintptr_t alloc_base;     /* that allocation's start (0: not known) */
  uint64_t alloc_size;      /* and size in bytes (0: not known) */
  uintptr_t alloc_pc;       /* where that call was made: a return address into the application
                               (0: not known); the writer symbolizes it */
  const char *window_call;  /* the call that made the window ("MPI_Win_create", ...; NULL: not
                               known) ... */
  uintptr_t window_pc;      /* ... and where it was made (a return address; 0: not known) */
  const char *hint;         /* what synchronisation was missing, when hrace can tell; or NULL */
  hrace_report_side_t a;    /* the access that found the race (the later one in real time) */
  hrace_report_side_t b;    /* the earlier access it conflicts with */
} hrace_report_t;

/* Who wrote a report file: its first record ("type":"rank", docs/report-format.md), so that
 * the launcher can tell a missing, duplicated or foreign rank from a clean one. */
typedef struct hrace_rank_info {
  int rank, size;            /* world rank and size (-1, 0 before MPI_Init or without MPI) */
  int hosts;                 /* distinct hosts of the job (0: not known) */
  const char *mpi_running;   /* the MPI library that runs (MPI_Get_library_version, 1st line) */
  const char *mpi_built;     /* the MPI libhrace was compiled against */
} hrace_rank_info_t;

/* Set once after MPI_Init: this process's identity. Before that, rank -1. Opens the rank's
 * report file at once (when report_dir is set), so a rank killed before it finds anything is
 * still seen as a rank that started and did not finish. */
void hrace__report_init(const hrace_rank_info_t *info);
/* A process whose code is instrumented or that runs OpenMP, with or without MPI: its report
 * (summary, exit status) is written at exit even if it never calls MPI_Init. Idempotent. */
void hrace__report_process(void);
/* Set once at start by the layer that knows: how many code modules of the program were built
 * with hrace-cc (0: only MPI-level checks ran). Read when the summary is written. */
void hrace__report_set_instrumented(unsigned (*count)(void));
/* Set at load by access/full.c: which memory loads and stores were checked on, "full" or
 * "window" (option mode), for the summary. */
void hrace__report_set_mode(const char *(*mode)(void));
/* Extra fields of the summary record: fills buf with ",\"name\":value..." (MPI layer: clock
 * bytes on the wire and memory, `hrace run --stats`). */
void hrace__report_set_stats(void (*fields)(char *buf, size_t cap));
/* Report a race. Thread-safe; never blocks on other ranks. Duplicate (kind, a.loc, b.loc)
 * pairs (in either order) are counted, not re-printed; a race that the suppressions
 * (option `suppressions`, suppress.h) match is counted as suppressed and not shown. */
void hrace__report_race(const hrace_report_t *r);
/* If the race (kind, a.loc, b.loc) was reported before, count this occurrence and return
 * true: the caller need not resolve the rest of the report. */
bool hrace__report_seen(const hrace_report_t *r);
/* A misuse of MPI by the application (operation outside an epoch, unlock without lock, ...).
 * `ret` is the return address into the application (0 if unknown). Printed as
 * "hrace: rank R: error: <msg> at func (file:line)" and written as a JSON "diagnostic". */
void hrace__report_misuse(uintptr_t ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At MPI_Finalize (and from an atexit handler, whichever comes first): write the counts and
 * a per-rank summary line, flush, close. Idempotent. */
void hrace__report_finish(void);
/* The rank is about to end abnormally (why: a constant such as "MPI_Abort", code: its error
 * code): write the counts and a "crash" record instead of the summary. For wrappers of calls
 * that never return (MPI_Abort); fatal signals are handled inside the writer. */
void hrace__report_abort(const char *why, int code);
/* Races on [addr, addr + size) of this process are benign (ThreadSanitizer's
 * AnnotateBenignRaceSized): a race whose first common byte lies there is neither reported nor
 * counted. Thread-safe; ranges accumulate for the life of the process. */
void hrace__report_benign(uintptr_t addr, uint64_t size);
/* Number of distinct races this rank has reported so far. */
unsigned hrace__report_count(void);
#endif
