/* MPI_Init / MPI_Init_thread / MPI_Finalize: bring hrace's side up and down (the handlers of
 * their wrappers, generated from wrappers.def like every other; MPI_Abort's too). MPI is initialised with the thread level the
 * application asks for: hrace's progress thread makes no MPI calls (its messages travel on
 * core/chan.h's sockets), and hrace's own MPI calls run inside the application's, on its
 * thread. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/chan.h"
#include "core/hooks.h"
#include "base/log.h"
#include "core/poll.h"
#include "mpi/comm.h"
#include "mpi/posted.h"
#include "mpi/reqtab.h"
#include "mpi/sync.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "report/symbolize.h"
#include "wrappers.h"

void hrace__p2p_init(void);
void hrace__p2p_fini(void);
void hrace__coll_fini(void);
int hrace__fortran_route(void);   /* fortran.c */

/* The MPI libhrace was compiled against, and whether the one that runs is of that ABI. A
 * PMPI layer built for one MPI inside a program of the other dies in its first call with a
 * segfault or an assertion that names neither; MPI_Get_library_version may be called before
 * MPI_Init (MPI-4.0 section 9.1.1), so the check comes first and stops with a clear message. */
#define HRACE_EXIT_WRONG_MPI 68   /* docs/report-format.md, "Exit status" */
#define HRACE_STR_(x) #x
#define HRACE_STR(x) HRACE_STR_(x)
#if defined(OPEN_MPI)
#define MPI_BUILT "Open MPI " HRACE_STR(OMPI_MAJOR_VERSION) "." HRACE_STR(OMPI_MINOR_VERSION) \
                  "." HRACE_STR(OMPI_RELEASE_VERSION)
static bool same_abi(const char *running) {
  char want[32];
  snprintf(want, sizeof want, "Open MPI v%d.", OMPI_MAJOR_VERSION);   /* ABI per major */
  return strncmp(running, want, strlen(want)) == 0;
}
#elif defined(MPICH_VERSION)
#define MPI_BUILT "MPICH " MPICH_VERSION
static bool same_abi(const char *running) {   /* the MPICH ABI family: anything but Open MPI */
  return strstr(running, "Open MPI") == NULL;
}
#else
#define MPI_BUILT "unknown MPI"
static bool same_abi(const char *running) { (void)running; return true; }
#endif

static char mpi_running[MPI_MAX_LIBRARY_VERSION_STRING + 1];

static void check_mpi(void) {
  int len = 0;
  if (PMPI_Get_library_version(mpi_running, &len) != MPI_SUCCESS) return;
  mpi_running[len < 0 ? 0 : len > MPI_MAX_LIBRARY_VERSION_STRING ? MPI_MAX_LIBRARY_VERSION_STRING : len] = '\0';
  mpi_running[strcspn(mpi_running, "\r\n")] = '\0';   /* the first line names it */
  for (char *c = mpi_running; *c; c++)
    if (*c == '\t') *c = ' ';                           /* MPICH: "MPICH Version:\t4.0.2" */
  if (same_abi(mpi_running)) return;
  char msg[MPI_MAX_LIBRARY_VERSION_STRING + 512];
  int n = snprintf(msg, sizeof msg, "hrace: error: this libhrace was built for %s, but the "
                   "program runs on %s: use the libhrace built against the program's MPI (see "
                   "`hrace version`; for MPICH: cmake -DMPI_C_COMPILER=mpicc.mpich)\n",
                   MPI_BUILT, mpi_running);
  if (n > 0) (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
  _exit(HRACE_EXIT_WRONG_MPI);
}

static int start(int *argc, char ***argv, int thread, int required, int *provided) {
  hrace__runtime_init();
  check_mpi();
  hrace__fortran_route();   /* Open MPI's Fortran bindings dlopen'ed since load, if any */
  int got = MPI_THREAD_SINGLE;
  int rc = thread ? PMPI_Init_thread(argc, argv, required, &got) : PMPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) return rc;
  if (provided) *provided = got;
  PMPI_Comm_rank(MPI_COMM_WORLD, &hrace__proc.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &hrace__proc.size);
  hrace__log_set_rank(hrace__proc.rank);
  int chan_failed = hrace__chan_init();
  hrace_rank_info_t me = { .rank = hrace__proc.rank, .size = hrace__proc.size,
                           .hosts = chan_failed ? 0 : hrace__chan_hosts(),
                           .mpi_running = mpi_running, .mpi_built = MPI_BUILT };
  hrace__report_init(&me);
  hrace__symbolize_prepare();
  if (chan_failed) return rc;
  if (hrace__comm_private(MPI_COMM_WORLD, 1, &hrace__proc.world_shadow) != MPI_SUCCESS)
    hrace__proc.world_shadow = MPI_COMM_NULL;
  hrace__runtime_mpi_init(hrace__proc.rank, hrace__proc.size, thread ? got : MPI_THREAD_SINGLE);
  hrace__progress_hook(1);   /* rma/progress.c */
  hrace__p2p_init();
  hrace__comm_init();
  hrace__proc.mpi_ready = true;
  return rc;
}

int hrace__h_init(int *argc, char ***argv, int active, uintptr_t ret) {
  return start(argc, argv, 0, MPI_THREAD_SINGLE, NULL);
}

int hrace__h_init_thread(int *argc, char ***argv, int required, int *provided, int active,
                         uintptr_t ret) {
  return start(argc, argv, 1, required, provided);
}

int hrace__h_finalize(int active, uintptr_t ret) {
  if (active) {
    /* Everyone has closed their epochs and had their records acknowledged; once all are here
     * nobody sends to a progress thread again, and it can stop. */
    hrace__rs_poll_orphans(1);
    hrace__p2p_fini();
    hrace__coll_fini();
    hrace__sync_all(hrace__proc.world_shadow, NULL, 0, "MPI_Finalize");
    hrace__ssend_stop();
    hrace__progress_hook(0);
    hrace__proc.mpi_ready = false;
    hrace__chan_fini();
    hrace__comm_fini();
    PMPI_Comm_free(&hrace__proc.world_shadow);
  }
  hrace__report_finish();
  /* Still inside the wrapper: what MPI does in there (MPICH's UCX device applies other ranks'
   * puts with memcpy in this process) is not the application's. */
  return PMPI_Finalize();
}

/* MPI_Abort ends every rank of the job without MPI_Finalize: the caller's report gets its
 * counts and a "crash" record naming the call and its code (docs/report-format.md) before MPI
 * tears the job down; the other ranks' records come from the signal MPI stops them with. */
int hrace__h_abort(MPI_Comm comm, int errorcode, int active, uintptr_t ret) {
  hrace__report_abort("MPI_Abort", errorcode);
  return PMPI_Abort(comm, errorcode);
}
