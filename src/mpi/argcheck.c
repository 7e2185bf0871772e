/* Argument errors diagnosed before the real call (see argcheck.h). */
#include "mpi/argcheck.h"

#include <pthread.h>
#include <stdio.h>

#include "mpi/nbcbuf.h"
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

/* ---- v- and w-form collectives ------------------------------------------------------------
 * Their counts and displacements are arrays of one entry per rank (of the remote group on an
 * intercommunicator) or per neighbour, read by MPI (and by hrace, nbcbuf.c) wherever they are
 * significant. Diagnosed there: a NULL array, a negative count, and a buffer whose blocks
 * would be touched through a NULL address or an uncommitted type (hrace__check_buffer). One
 * diagnostic per array: the first bad entry names the rest. */

static int null_array(const char *fn, const char *name, int n, uintptr_t pc) {
  hrace__report_misuse(pc, "%s with a NULL %s array (%d entries are read)", fn, name, n);
  return -1;
}

/* counts[0..n): none negative; their sum into *total. */
static int counts_ok(const char *fn, const char *cname, const int counts[], int n,
                     long long *total, uintptr_t pc) {
  if (!counts) return null_array(fn, cname, n, pc);
  *total = 0;
  for (int i = 0; i < n; i++) {
    if (counts[i] < 0) {
      hrace__report_misuse(pc, "%s with %s[%d] = %d, a negative count", fn, cname, i, counts[i]);
      return -1;
    }
    *total += counts[i];
  }
  return 0;
}

/* Blocks of a v-form side: counts[i] elements of dt for i < n. `side`: "send" / "receive". */
static int vside(const char *fn, const char *side, const char *cname, const char *dname,
                 const void *buf, const int counts[], const void *displs, MPI_Datatype dt, int n,
                 uintptr_t pc) {
  long long total;
  if (n <= 0 || buf == MPI_IN_PLACE) return 0;
  if (counts_ok(fn, cname, counts, n, &total, pc)) return -1;
  if (!displs) return null_array(fn, dname, n, pc);
  char what[32];
  snprintf(what, sizeof what, "%s buffer", side);
  return hrace__check_buffer(fn, what, buf, total, dt, pc);
}

/* A w-form side: a datatype per block, displacements in bytes (a NULL buffer is MPI_BOTTOM
 * with absolute displacements, legal: only the types are checked). */
static int wside(const char *fn, const char *side, const void *buf, const int counts[],
                 const void *displs, const MPI_Datatype types[], int n, uintptr_t pc) {
  if (n <= 0 || buf == MPI_IN_PLACE) return 0;
  char cname[16], dname[16], tname[16];
  snprintf(cname, sizeof cname, "%scounts", *side == 's' ? "send" : "recv");
  snprintf(dname, sizeof dname, "%sdispls", *side == 's' ? "s" : "r");
  snprintf(tname, sizeof tname, "%stypes", *side == 's' ? "send" : "recv");
  long long total;
  if (counts_ok(fn, cname, counts, n, &total, pc)) return -1;
  if (!displs || !types) return null_array(fn, !displs ? dname : tname, n, pc);
  for (int i = 0; i < n; i++) {
    char what[32];
    snprintf(what, sizeof what, "%s[%d]", tname, i);
    if (counts[i] > 0 && hrace__check_type(fn, what, types[i], pc)) return -1;
  }
  return 0;
}

/* One block (the non-v side of a call). */
static int one(const char *fn, const char *side, const void *buf, int count, MPI_Datatype dt,
               uintptr_t pc) {
  if (buf == MPI_IN_PLACE) return 0;
  if (count < 0) {
    hrace__report_misuse(pc, "%s with a negative %s count (%d)", fn, side, count);
    return -1;
  }
  char what[32];
  snprintf(what, sizeof what, "%s buffer", side);
  return hrace__check_buffer(fn, what, buf, count, dt, pc);
}

/* Rooted calls: is this process the root, a member (sends or receives a block), or neither
 * (MPI_PROC_NULL on an intercommunicator)? n: blocks at the root. */
static void roles(MPI_Comm comm, int root, int *is_root, int *member, int *n) {
  int rank = 0, inter = 0;
  *n = hrace__coll_shape(comm, &rank, &inter);
  *is_root = inter ? root == MPI_ROOT : rank == root;
  *member = inter ? root != MPI_ROOT && root != MPI_PROC_NULL : 1;
}

int hrace__check_Scatterv(const char *fn, const void *sendbuf, const int sendcounts[],
                          const int displs[], MPI_Datatype sendtype, const void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                          uintptr_t pc) {
  int r, m, n, bad = 0;
  roles(comm, root, &r, &m, &n);
  if (r) bad |= vside(fn, "send", "sendcounts", "displs", sendbuf, sendcounts, displs, sendtype, n, pc);
  if (m) bad |= one(fn, "receive", recvbuf, recvcount, recvtype, pc);
  return bad;
}

int hrace__check_Gatherv(const char *fn, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[],
                         const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                         uintptr_t pc) {
  int r, m, n, bad = 0;
  roles(comm, root, &r, &m, &n);
  if (m) bad |= one(fn, "send", sendbuf, sendcount, sendtype, pc);
  if (r) bad |= vside(fn, "receive", "recvcounts", "displs", recvbuf, recvcounts, displs, recvtype, n, pc);
  return bad;
}

int hrace__check_Allgatherv(const char *fn, const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[],
                            const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                            uintptr_t pc) {
  int rank, inter, n = hrace__coll_shape(comm, &rank, &inter);
  return one(fn, "send", sendbuf, sendcount, sendtype, pc) |
         vside(fn, "receive", "recvcounts", "displs", recvbuf, recvcounts, displs, recvtype, n, pc);
}

int hrace__check_Alltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype, const void *recvbuf,
                           const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm, uintptr_t pc) {
  int rank, inter, n = hrace__coll_shape(comm, &rank, &inter);
  return vside(fn, "send", "sendcounts", "sdispls", sendbuf, sendcounts, sdispls, sendtype, n, pc) |
         vside(fn, "receive", "recvcounts", "rdispls", recvbuf, recvcounts, rdispls, recvtype, n, pc);
}

int hrace__check_Alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                           const int sdispls[], const MPI_Datatype sendtypes[], const void *recvbuf,
                           const int recvcounts[], const int rdispls[],
                           const MPI_Datatype recvtypes[], MPI_Comm comm, uintptr_t pc) {
  int rank, inter, n = hrace__coll_shape(comm, &rank, &inter);
  return wside(fn, "send", sendbuf, sendcounts, sdispls, sendtypes, n, pc) |
         wside(fn, "receive", recvbuf, recvcounts, rdispls, recvtypes, n, pc);
}

/* recvcounts has an entry per rank of this process's own group (MPI-3.1 Sec. 5.10.1). */
int hrace__check_Reduce_scatter(const char *fn, const void *sendbuf, const void *recvbuf,
                                const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, uintptr_t pc) {
  (void)op;
  int rank = 0, n = 0;
  if (PMPI_Comm_size(comm, &n) != MPI_SUCCESS || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return 0;
  long long total;
  if (counts_ok(fn, "recvcounts", recvcounts, n, &total, pc)) return -1;
  return (sendbuf == MPI_IN_PLACE ? 0 : hrace__check_buffer(fn, "send buffer", sendbuf, total, datatype, pc)) |
         one(fn, "receive", recvbuf, recvcounts[rank], datatype, pc);
}

int hrace__check_Neighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount,
                                     MPI_Datatype sendtype, const void *recvbuf,
                                     const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm, uintptr_t pc) {
  int in, out;
  if (hrace__coll_degrees(comm, &in, &out)) return 0;   /* MPI answers: no topology */
  return (out ? one(fn, "send", sendbuf, sendcount, sendtype, pc) : 0) |
         vside(fn, "receive", "recvcounts", "displs", recvbuf, recvcounts, displs, recvtype, in, pc);
}

int hrace__check_Neighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype,
                                    const void *recvbuf, const int recvcounts[],
                                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                    uintptr_t pc) {
  int in, out;
  if (hrace__coll_degrees(comm, &in, &out)) return 0;
  return vside(fn, "send", "sendcounts", "sdispls", sendbuf, sendcounts, sdispls, sendtype, out, pc) |
         vside(fn, "receive", "recvcounts", "rdispls", recvbuf, recvcounts, rdispls, recvtype, in, pc);
}

int hrace__check_Neighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    const void *recvbuf, const int recvcounts[],
                                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                    MPI_Comm comm, uintptr_t pc) {
  int in, out;
  if (hrace__coll_degrees(comm, &in, &out)) return 0;
  return wside(fn, "send", sendbuf, sendcounts, sdispls, sendtypes, out, pc) |
         wside(fn, "receive", recvbuf, recvcounts, rdispls, recvtypes, in, pc);
}
