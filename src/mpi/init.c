/* MPI_Init / MPI_Init_thread / MPI_Finalize: bring hrace's side up and down (written by hand:
 * every other wrapper comes from wrappers.def). MPI is initialised with the thread level the
 * application asks for: hrace's progress thread makes no MPI calls (its messages travel on
 * core/chan.h's sockets), and hrace's own MPI calls run inside the application's, on its
 * thread. */
#include <stdlib.h>

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

void hrace__p2p_init(void);
void hrace__p2p_fini(void);
void hrace__coll_fini(void);
int hrace__fortran_route(void);   /* fortran.c */

static int start(int *argc, char ***argv, int thread, int required, int *provided) {
  hrace__runtime_init();
  hrace__fortran_route();   /* Open MPI's Fortran bindings dlopen'ed since load, if any */
  int got = MPI_THREAD_SINGLE;
  int rc = thread ? PMPI_Init_thread(argc, argv, required, &got) : PMPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) return rc;
  if (provided) *provided = got;
  PMPI_Comm_rank(MPI_COMM_WORLD, &hrace__proc.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &hrace__proc.size);
  hrace__log_set_rank(hrace__proc.rank);
  hrace__report_init(hrace__proc.rank, hrace__proc.size);
  if (hrace__chan_init()) return rc;
  if (hrace__comm_private(MPI_COMM_WORLD, 1, &hrace__proc.world_shadow) != MPI_SUCCESS)
    hrace__proc.world_shadow = MPI_COMM_NULL;
  hrace__runtime_mpi_init(hrace__proc.rank, hrace__proc.size, thread ? got : MPI_THREAD_SINGLE);
  hrace__progress_hook(1);   /* rma/progress.c */
  hrace__p2p_init();
  hrace__comm_init();
  hrace__proc.mpi_ready = true;
  return rc;
}

HRACE_EXPORT int MPI_Init(int *argc, char ***argv) {
  HRACE_ENTER();
  int rc = start(argc, argv, 0, MPI_THREAD_SINGLE, NULL);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  HRACE_ENTER();
  int rc = start(argc, argv, 1, required, provided);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Finalize(void) {
  HRACE_ENTER();
  if (HRACE_ACTIVE()) {
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
  int rc = PMPI_Finalize();
  HRACE_LEAVE();
  return rc;
}
