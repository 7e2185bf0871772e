/* MPI_Init / MPI_Init_thread / MPI_Finalize: bring hrace's side up and down (written by hand:
 * every other wrapper comes from wrappers.def). hrace needs MPI_THREAD_MULTIPLE for its
 * progress and responder threads, whatever the application asks for; the application is
 * told the level it asked for (or less, if MPI gives less). */
#include <stdlib.h>

#include "core/log.h"
#include "core/runtime.h"
#include "mpi/comm.h"
#include "mpi/posted.h"
#include "mpi/reqtab.h"
#include "mpi/sync.h"
#include "mpi/wrap.h"
#include "report/report.h"
#include "rma/protocol.h"

void hrace__p2p_init(void);

static int start(int *argc, char ***argv, int required, int *provided) {
  hrace__runtime_init();
  int got = MPI_THREAD_SINGLE;
  int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &got);
  if (rc != MPI_SUCCESS) return rc;
  if (provided) *provided = required < got ? required : got;
  PMPI_Comm_rank(MPI_COMM_WORLD, &hrace__proc.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &hrace__proc.size);
  hrace__log_set_rank(hrace__proc.rank);
  hrace__report_init(hrace__proc.rank, hrace__proc.size);
  if (got < MPI_THREAD_MULTIPLE) {
    hrace__warn("MPI provides thread level %d, not MPI_THREAD_MULTIPLE: hrace needs it for its "
                "progress thread and checks nothing in this run", got);
    return rc;
  }
  PMPI_Comm_dup(MPI_COMM_WORLD, &hrace__proc.ctl);
  PMPI_Comm_dup(MPI_COMM_WORLD, &hrace__proc.world_shadow);
  PMPI_Comm_set_name(hrace__proc.ctl, "hrace-ctl");
  hrace__runtime_mpi_init(hrace__proc.rank, hrace__proc.size, required);
  hrace__progress_start();
  hrace__p2p_init();
  hrace__comm_init();
  hrace__ssend_start();
  hrace__proc.mpi_ready = true;
  return rc;
}

HRACE_EXPORT int MPI_Init(int *argc, char ***argv) {
  HRACE_ENTER();
  int rc = start(argc, argv, MPI_THREAD_SINGLE, NULL);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  HRACE_ENTER();
  int rc = start(argc, argv, required, provided);
  HRACE_LEAVE();
  return rc;
}

HRACE_EXPORT int MPI_Finalize(void) {
  HRACE_ENTER();
  if (HRACE_ACTIVE()) {
    /* Everyone has closed their epochs and had their records acknowledged; once all are here
     * nobody sends to a progress thread again, and it can stop. */
    hrace__rs_poll_orphans(1);
    hrace__sync_all(hrace__proc.world_shadow, NULL, 0, "MPI_Finalize");
    hrace__ssend_stop();
    hrace__progress_stop();
    hrace__proc.mpi_ready = false;
    hrace__comm_fini();
    PMPI_Comm_free(&hrace__proc.ctl);
    PMPI_Comm_free(&hrace__proc.world_shadow);
  }
  hrace__report_finish();
  HRACE_LEAVE();
  return PMPI_Finalize();
}
