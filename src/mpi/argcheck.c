/* Argument errors diagnosed before the real call (see argcheck.h). */
#include "mpi/argcheck.h"

#include <pthread.h>

#include "report/report.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static MPI_Comm quiet = MPI_COMM_NULL;   /* a duplicate of MPI_COMM_SELF whose errors return */

/* Named (predefined) types seen by this thread: their handles denote them for the whole run
 * (a derived type's handle may come back as another type once freed, so those are not
 * cached). Spares the envelope query on every RMA operation and message. */
#define NAMED_CACHE 4
static __thread MPI_Datatype named[NAMED_CACHE];
static __thread unsigned named_next;   /* entries filled: min(named_next, NAMED_CACHE) */

int hrace__type_committed(MPI_Datatype dt) {
  int ni, na, nd, comb;
  if (dt == MPI_DATATYPE_NULL) return 0;
  for (unsigned i = 0; i < NAMED_CACHE && i < named_next; i++)
    if (named[i] == dt) return 1;
  if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS) return 0;
  if (comb == MPI_COMBINER_NAMED) {
    named[named_next % NAMED_CACHE] = dt;
    if (++named_next >= 2 * NAMED_CACHE) named_next = NAMED_CACHE;   /* no overflow */
    return 1;
  }
  pthread_mutex_lock(&mu);
  if (quiet == MPI_COMM_NULL && PMPI_Comm_dup(MPI_COMM_SELF, &quiet) == MPI_SUCCESS)
    PMPI_Comm_set_errhandler(quiet, MPI_ERRORS_RETURN);
  MPI_Comm c = quiet;
  pthread_mutex_unlock(&mu);
  if (c == MPI_COMM_NULL) return 1;   /* cannot tell: assume the program is right */
  char out[1];
  int pos = 0;
  return PMPI_Pack(out, 0, dt, out, (int)sizeof out, &pos, c) == MPI_SUCCESS;
}

int hrace__check_type(const char *fn, const char *what, MPI_Datatype dt, uintptr_t pc) {
  if (dt == MPI_DATATYPE_NULL) {
    hrace__report_misuse(pc, "%s with MPI_DATATYPE_NULL as its %s datatype", fn, what);
    return -1;
  }
  if (!hrace__type_committed(dt)) {
    hrace__report_misuse(pc, "%s with a %s datatype that was never committed (MPI_Type_commit) "
                         "or is not a valid datatype", fn, what);
    return -1;
  }
  return 0;
}

int hrace__check_buffer(const char *fn, const char *what, const void *buf, long long count,
                        MPI_Datatype dt, uintptr_t pc) {
  if (count <= 0) return 0;
  if (hrace__check_type(fn, what, dt, pc)) return -1;
  if (buf) return 0;
  int size = 0;
  if (PMPI_Type_size(dt, &size) != MPI_SUCCESS || size == 0) return 0;   /* nothing is touched */
  MPI_Aint tlb = 0, text = 0;
  PMPI_Type_get_true_extent(dt, &tlb, &text);
  if (tlb != 0) return 0;   /* MPI_BOTTOM with absolute addresses */
  hrace__report_misuse(pc, "%s with a NULL %s and a count of %lld", fn, what, count);
  return -1;
}

int hrace__check_root(const char *fn, MPI_Comm comm, int root, uintptr_t pc) {
  int inter = 0, size = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
  if (inter) {
    if (root == MPI_ROOT || root == MPI_PROC_NULL) return 0;
    if (PMPI_Comm_remote_size(comm, &size) != MPI_SUCCESS) return 0;
  } else if (PMPI_Comm_size(comm, &size) != MPI_SUCCESS) {
    return 0;
  }
  if (root >= 0 && root < size) return 0;
  hrace__report_misuse(pc, "%s with root %d, not a rank of the %s (%d ranks)", fn, root,
                       inter ? "intercommunicator's remote group" : "communicator", size);
  return -1;
}

int hrace__check_coll(const char *fn, const void *sbuf, int scount, MPI_Datatype stype,
                      const void *rbuf, int rcount, MPI_Datatype rtype, uintptr_t pc) {
  int bad = 0;
  if (sbuf == rbuf && scount == rcount && stype == rtype)   /* MPI_Bcast's one buffer */
    return hrace__check_buffer(fn, "buffer", sbuf, scount, stype, pc);
  if (sbuf != MPI_IN_PLACE && hrace__check_buffer(fn, "send buffer", sbuf, scount, stype, pc)) bad = -1;
  if (rtype != MPI_DATATYPE_NULL || rcount > 0)
    if (hrace__check_buffer(fn, "receive buffer", rbuf, rcount, rtype, pc))
      bad = -1;
  return bad;
}
