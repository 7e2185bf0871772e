/* The report writer: one stream of race reports and misuse diagnostics per rank.
 * Text on stderr for people (option report_text), JSON lines in <report_dir>/rank-<R>.jsonl
 * for `hrace run` and tools, written as found so that a crashing rank leaves them behind.
 * Deduplicated per rank by (kind, both source locations); counts are written at the end. */
#ifndef HRACE_REPORT_REPORT_H
#define HRACE_REPORT_REPORT_H
#include <stdint.h>
#include "report/symbolize.h"

typedef struct hrace_report_side {
  const char *op;           /* "load", "store", "MPI_Put", "MPI_Get", "MPI_Accumulate", ... */
  int rank;                 /* world rank that made the access */
  int thread;               /* OpenMP thread number in that rank (0: initial thread) */
  hrace_srcloc_t loc;       /* where: resolved by whoever had the code address */
  uint64_t offset, size;    /* byte range accessed, relative to the window's base at its owner */
} hrace_report_side_t;

typedef struct hrace_report {
  const char *kind;         /* "remote" (RMA vs load/store), "rma-rma", "local", "origin-buffer" */
  const char *window;       /* window name (MPI_Win_set_name) or "win<N>" */
  int owner;                /* rank whose memory it is */
  uintptr_t base;           /* the window's base address at its owner */
  hrace_report_side_t a;    /* the access that found the race (the later one in real time) */
  hrace_report_side_t b;    /* the earlier access it conflicts with */
} hrace_report_t;

/* Set once after MPI_Init: this process's world rank and world size. Before that, rank -1. */
void hrace__report_init(int rank, int size);
/* Report a race. Thread-safe; never blocks on other ranks. Duplicate (kind, a.loc, b.loc)
 * pairs (in either order) are counted, not re-printed. */
void hrace__report_race(const hrace_report_t *r);
/* A misuse of MPI by the application (operation outside an epoch, unlock without lock, ...).
 * `ret` is the return address into the application (0 if unknown). Printed as
 * "hrace: rank R: error: <msg> at func (file:line)" and written as a JSON "diagnostic". */
void hrace__report_misuse(uintptr_t ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* At MPI_Finalize (and from an atexit handler, whichever comes first): write the counts and
 * a per-rank summary line, flush, close. Idempotent. */
void hrace__report_finish(void);
/* Number of distinct races this rank has reported so far. */
unsigned hrace__report_count(void);
#endif
