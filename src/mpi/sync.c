/* Clock exchanges over communicators (see sync.h). */
#include "mpi/sync.h"

#include <stdlib.h>
#include <string.h>
#include "core/runtime.h"

/* One allreduce(MAX) carries every member's clock to every member: all-to-all in one step.
 * Today the clock has one entry per world rank; the sparse exchange of seed 001 Sec. III-G
 * for sub-communicators comes with the exporter clocks (issue 5). */
void hrace__sync_all(MPI_Comm shadow, uint32_t *extra, int nextra, const char *why) {
  uint32_t n = hrace__proc.vc.n;
  hrace_clk_t stackbuf[256];
  hrace_clk_t *buf = n + nextra <= 256 ? stackbuf : malloc((n + nextra) * sizeof *buf);
  if (!buf) abort();
  memcpy(buf, hrace__signal_clock()->c, n * sizeof *buf);
  for (int i = 0; i < nextra; i++) buf[n + i] = extra[i];
  PMPI_Allreduce(MPI_IN_PLACE, buf, (int)(n + nextra), MPI_UINT32_T, MPI_MAX, shadow);
  hrace__wait(buf, n, why);
  hrace__signal_done(why);
  for (int i = 0; i < nextra; i++) extra[i] = buf[n + i];
  if (buf != stackbuf) free(buf);
}

static int keyval = MPI_KEYVAL_INVALID;

static int drop_shadow(MPI_Comm comm, int key, void *val, void *extra) {
  MPI_Comm *s = val;
  PMPI_Comm_free(s);
  free(s);
  return MPI_SUCCESS;
}

MPI_Comm hrace__comm_shadow(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return hrace__proc.world_shadow;
  if (keyval == MPI_KEYVAL_INVALID)
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, drop_shadow, &keyval, NULL);
  void *val;
  int found = 0;
  PMPI_Comm_get_attr(comm, keyval, &val, &found);
  if (found) return *(MPI_Comm *)val;
  MPI_Comm *s = malloc(sizeof *s);
  if (!s) abort();
  PMPI_Comm_dup(comm, s);
  PMPI_Comm_set_attr(comm, keyval, s);
  return *s;
}
