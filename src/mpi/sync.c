/* Clock exchanges over communicators for other layers (see sync.h). */
#include "mpi/sync.h"

#include <stdlib.h>
#include <string.h>
#include "mpi/comm.h"
#include "mpi/frame.h"

/* One allreduce(MAX) carries every member's clock to every member: all-to-all in one step,
 * with `extra` values reduced along. (The application's collectives use the sparse exchange
 * of coll.c; windows and fences keep this dense form, which also agrees on their ids.) */
void hrace__sync_all(MPI_Comm shadow, uint32_t *extra, int nextra, const char *why) {
  uint32_t n = hrace__clock_len();
  hrace_clk_t stackbuf[256];
  hrace_clk_t *buf = n + nextra <= 256 ? stackbuf : malloc((n + nextra) * sizeof *buf);
  if (!buf) abort();
  hrace__clock_out(buf);
  for (int i = 0; i < nextra; i++) buf[n + i] = extra[i];
  PMPI_Allreduce(MPI_IN_PLACE, buf, (int)(n + nextra), MPI_UINT32_T, MPI_MAX, shadow);
  hrace__wait(buf, n, why);
  hrace__signal_done(why);
  for (int i = 0; i < nextra; i++) extra[i] = buf[n + i];
  if (buf != stackbuf) free(buf);
}

MPI_Comm hrace__comm_shadow(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return hrace__proc.world_shadow;
  hrace_comm_t *r = hrace__comm_of(comm);
  return r ? r->shadow : MPI_COMM_NULL;
}
