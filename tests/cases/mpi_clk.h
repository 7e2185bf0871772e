/* Clock-level assertions for the mpi_clk_*.c cases: "did event X happen before event Y?"
 * through hrace's test API (src/mpi/debug.c). A stamp is taken where X happens (the epoch of
 * the calling thread), a view where Y happens (its clock); X -> Y iff stamp.c <= view[stamp.ex].
 * Stamps and views travel to rank 0 over a communicator duplicated with PMPI, which hrace does
 * not see, so the checks add no synchronisation. A failed check prints both sides and makes the
 * job exit 1 (the case's header says no-race: exit 0 expected). clk_finish() calls MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned hrace_test_epoch(unsigned *exporter);
unsigned hrace_test_clock(unsigned *out, unsigned cap);

typedef struct { unsigned ex, c; } stamp_t;
typedef struct { unsigned n, v[256]; } view_t;

static MPI_Comm clk_comm = MPI_COMM_NULL;
static int clk_rank, clk_failed;

static void clk_init(void) {
  PMPI_Comm_dup(MPI_COMM_WORLD, &clk_comm);
  PMPI_Comm_rank(clk_comm, &clk_rank);
}

static stamp_t stamp(void) { stamp_t s; s.c = hrace_test_epoch(&s.ex); return s; }
static view_t view(void) {
  view_t v;
  memset(&v, 0, sizeof v);
  v.n = hrace_test_clock(v.v, 256);
  return v;
}

/* Collective over clk_comm: X stamped at rank xr, Y viewed at rank yr; expect hb or not. */
static void check_hb(int xr, stamp_t x, int yr, view_t y, int expect, const char *what) {
  if (clk_rank == xr && xr != 0) PMPI_Send(&x, sizeof x, MPI_BYTE, 0, 1, clk_comm);
  if (clk_rank == yr && yr != 0) PMPI_Send(&y, sizeof y, MPI_BYTE, 0, 2, clk_comm);
  if (clk_rank == 0) {
    if (xr != 0) PMPI_Recv(&x, sizeof x, MPI_BYTE, xr, 1, clk_comm, MPI_STATUS_IGNORE);
    if (yr != 0) PMPI_Recv(&y, sizeof y, MPI_BYTE, yr, 2, clk_comm, MPI_STATUS_IGNORE);
    int got = x.ex < y.n && x.c <= y.v[x.ex];
    printf("%s - %s (X at rank %d: entry %u = %u; Y at rank %d sees %u)\n",
           got == expect ? "ok" : "not ok", what, xr, x.ex, x.c, yr, x.ex < y.n ? y.v[x.ex] : 0);
    if (got != expect) clk_failed = 1;
  }
  /* Any rank's failure (this check at rank 0, or a data check at another rank) fails all: a
   * Bcast from rank 0 here once reset the other ranks' failures, and their checks never failed. */
  PMPI_Allreduce(MPI_IN_PLACE, &clk_failed, 1, MPI_INT, MPI_MAX, clk_comm);
}

/* Order ranks in real time without hrace seeing it. */
static void invisible_barrier(void) { PMPI_Barrier(clk_comm); }

static int clk_finish(void) {
  fflush(stdout);
  PMPI_Barrier(clk_comm);
  PMPI_Comm_free(&clk_comm);
  MPI_Finalize();
  return clk_failed;
}
