/* The buffers of non-blocking collectives (request.h, "Buffers of non-blocking calls"): which
 * bytes each call reads and writes in this process, tracked from the call to its request's
 * completion. MPI-3.1 Sec. 5.12: "all associated send buffers ... should not be modified, and
 * all associated receive buffers should not be accessed, until the collective operation
 * completes". The generated wrapper calls
 * hrace__nbc_<Name> (the call's own parameters, then the caller's code address) after a
 * successful real call on a communicator hrace knows; the request state the exchange made
 * (coll.c, kind COLL) carries the handle.
 *
 *   call                          reads (this process)              writes
 *   Ibcast                        root: buffer                      others: buffer
 *   Iscatter(v)                   root: sendbuf, every block        recvbuf (not root IN_PLACE)
 *   Igather(v)                    sendbuf (not root IN_PLACE)       root: recvbuf, every block
 *   Ireduce                       sendbuf (not IN_PLACE)            root: recvbuf
 *   Iallgather(v)                 sendbuf (not IN_PLACE)            recvbuf, every block
 *   Ialltoall(v,w)                sendbuf, every block              recvbuf, every block
 *   Iallreduce, Iscan, Iexscan    sendbuf (not IN_PLACE)            recvbuf
 *   Ireduce_scatter(_block)       sendbuf, all of it                recvbuf, this rank's block
 *   Ineighbor_*                   sendbuf, one block per out-edge   recvbuf, one per in-edge
 *
 * With MPI_IN_PLACE the receive buffer is also read; it is tracked as written, which covers
 * both. On an intercommunicator "every block" means one per rank of the remote group, the
 * root passes MPI_ROOT (it only sends, or only receives) and the rest of its group
 * MPI_PROC_NULL (no buffers), MPI-3.1 Sec. 5.2.3. Ireduce_scatter(_block) on one is not
 * tracked: whether its send buffer spans the local or the remote group's blocks is read
 * differently by implementations, and a span too long would report races that are not.
 * Scans and neighbourhood collectives have no intercommunicator form. */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/nbcbuf.h"
#include "mpi/reqtab.h"

typedef struct pieces {
  hrace_nbbuf_t *b;
  int n, cap;
  hrace_nbbuf_t stack[8];
} pieces_t;

static void add(pieces_t *p, const void *base, MPI_Aint off, int count, MPI_Datatype dt, int writes) {
  if (!base || base == MPI_IN_PLACE || count <= 0 || dt == MPI_DATATYPE_NULL) return;
  if (p->n == p->cap) {
    int cap = 2 * p->cap;
    hrace_nbbuf_t *nb = malloc(cap * sizeof *nb);
    if (!nb) abort();
    for (int i = 0; i < p->n; i++) nb[i] = p->b[i];
    if (p->b != p->stack) free(p->b);
    p->b = nb;
    p->cap = cap;
  }
  p->b[p->n++] = (hrace_nbbuf_t){ (const char *)base + off, count, dt, writes };
}

static MPI_Aint extent(MPI_Datatype dt) {
  MPI_Aint lb, ext;
  return PMPI_Type_get_extent(dt, &lb, &ext) == MPI_SUCCESS ? ext : 0;
}

int hrace__coll_shape(MPI_Comm comm, int *rank, int *inter) {
  int size = 0;
  *inter = 0;
  if (PMPI_Comm_test_inter(comm, inter) != MPI_SUCCESS) return 0;
  if ((*inter ? PMPI_Comm_remote_size(comm, &size) : PMPI_Comm_size(comm, &size)) != MPI_SUCCESS)
    return 0;
  PMPI_Comm_rank(comm, rank);
  return size;
}

int hrace__coll_degrees(MPI_Comm comm, int *in, int *out) {
  int topo = MPI_UNDEFINED, rank, nd, w;
  *in = *out = 0;
  if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return -1;
  switch (topo) {
  case MPI_CART:
    if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS) return -1;
    *in = *out = 2 * nd;
    return 0;
  case MPI_GRAPH:
    PMPI_Comm_rank(comm, &rank);
    if (PMPI_Graph_neighbors_count(comm, rank, &nd) != MPI_SUCCESS) return -1;
    *in = *out = nd;
    return 0;
  case MPI_DIST_GRAPH:
    return PMPI_Dist_graph_neighbors_count(comm, in, out, &w) == MPI_SUCCESS ? 0 : -1;
  default:
    return -1;
  }
}

/* The pieces go in flight now (a non-blocking call), or are kept for every MPI_Start of a
 * persistent collective (coll.c, hrace__coll_started), under the name of its init call. */
static void done(pieces_t *p, MPI_Request req, const char *fn, uintptr_t pc) {
  hrace_rs_t *s = p->n ? hrace__rs_get(req) : NULL;
  if (s && s->kind == HRACE_RS_COLL && s->persistent) {
    free(s->pieces);
    s->pieces = malloc(p->n * sizeof *s->pieces);
    if (!s->pieces) abort();
    for (int i = 0; i < p->n; i++) s->pieces[i] = p->b[i];
    s->npieces = p->n;
  } else if (s && s->kind == HRACE_RS_COLL) {
    hrace__rs_buffers_done(s);
    s->nbbuf = hrace__nb_track(p->b, p->n, fn, pc);
  }
  if (p->b != p->stack) free(p->b);
}

#define BEGIN(comm)                                                        \
  pieces_t p_ = { .cap = 8 };                                              \
  p_.b = p_.stack;                                                         \
  int rank_ = 0, inter_ = 0;                                               \
  int size_ = hrace__coll_shape(comm, &rank_, &inter_);                    \
  if (!size_) return;                                                      \
  (void)rank_, (void)inter_

/* Roles in a rooted call. Intracommunicator: the root, and every rank (root included) as a
 * member that sends its block (Gather, Reduce) or receives one (Scatter). Intercommunicator:
 * the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL (no buffers at all), and the
 * other group's ranks are the members; the root is none. */
#define ROOTED(root)                                                       \
  int root_ = inter_ ? (root) == MPI_ROOT : rank_ == (root);               \
  int member_ = inter_ ? (root) != MPI_ROOT && (root) != MPI_PROC_NULL : 1

/* Blocks of a v-form buffer: counts[i] elements at displs[i] extents, for every i < n. */
static void blocks(pieces_t *p, const void *buf, const int *counts, const int *displs,
                   MPI_Datatype dt, int n, int writes) {
  if (!buf || buf == MPI_IN_PLACE || !counts || !displs) return;
  MPI_Aint e = extent(dt);
  for (int i = 0; i < n; i++) add(p, buf, (MPI_Aint)displs[i] * e, counts[i], dt, writes);
}

void hrace__nbc_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  ROOTED(root);
  if (root_ || member_) add(&p_, buffer, 0, count, datatype, !root_);
  done(&p_, *request, "MPI_Ibcast", pc);
}

void hrace__nbc_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  ROOTED(root);
  if (root_) add(&p_, sendbuf, 0, sendcount * size_, sendtype, 0);
  if (member_) add(&p_, recvbuf, 0, recvcount, recvtype, 1);
  done(&p_, *request, "MPI_Iscatter", pc);
}

void hrace__nbc_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                          int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  ROOTED(root);
  if (root_) blocks(&p_, sendbuf, sendcounts, displs, sendtype, size_, 0);
  if (member_) add(&p_, recvbuf, 0, recvcount, recvtype, 1);
  done(&p_, *request, "MPI_Iscatterv", pc);
}

void hrace__nbc_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  ROOTED(root);
  if (member_) add(&p_, sendbuf, 0, sendcount, sendtype, 0);
  if (root_) add(&p_, recvbuf, 0, recvcount * size_, recvtype, 1);
  done(&p_, *request, "MPI_Igather", pc);
}

void hrace__nbc_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                         MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  ROOTED(root);
  if (member_) add(&p_, sendbuf, 0, sendcount, sendtype, 0);
  if (root_) blocks(&p_, recvbuf, recvcounts, displs, recvtype, size_, 1);
  done(&p_, *request, "MPI_Igatherv", pc);
}

void hrace__nbc_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  (void)op;
  BEGIN(comm);
  ROOTED(root);
  if (member_) add(&p_, sendbuf, 0, count, datatype, 0);
  if (root_) add(&p_, recvbuf, 0, count, datatype, 1);
  done(&p_, *request, "MPI_Ireduce", pc);
}

void hrace__nbc_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  add(&p_, sendbuf, 0, sendcount, sendtype, 0);
  add(&p_, recvbuf, 0, recvcount * size_, recvtype, 1);
  done(&p_, *request, "MPI_Iallgather", pc);
}

void hrace__nbc_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
                            uintptr_t pc) {
  BEGIN(comm);
  add(&p_, sendbuf, 0, sendcount, sendtype, 0);
  blocks(&p_, recvbuf, recvcounts, displs, recvtype, size_, 1);
  done(&p_, *request, "MPI_Iallgatherv", pc);
}

void hrace__nbc_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  add(&p_, sendbuf, 0, sendcount * size_, sendtype, 0);
  add(&p_, recvbuf, 0, recvcount * size_, recvtype, 1);
  done(&p_, *request, "MPI_Ialltoall", pc);
}

void hrace__nbc_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  blocks(&p_, sendbuf, sendcounts, sdispls, sendtype, size_, 0);
  blocks(&p_, recvbuf, recvcounts, rdispls, recvtype, size_, 1);
  done(&p_, *request, "MPI_Ialltoallv", pc);
}

void hrace__nbc_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  for (int i = 0; i < size_; i++) {   /* displacements in bytes */
    if (sendbuf != MPI_IN_PLACE && sendcounts && sdispls && sendtypes)
      add(&p_, sendbuf, sdispls[i], sendcounts[i], sendtypes[i], 0);
    if (recvcounts && rdispls && recvtypes) add(&p_, recvbuf, rdispls[i], recvcounts[i], recvtypes[i], 1);
  }
  done(&p_, *request, "MPI_Ialltoallw", pc);
}

void hrace__nbc_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  (void)op;
  BEGIN(comm);
  add(&p_, sendbuf, 0, count, datatype, 0);
  add(&p_, recvbuf, 0, count, datatype, 1);
  done(&p_, *request, "MPI_Iallreduce", pc);
}

void hrace__nbc_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request, uintptr_t pc) {
  (void)op;
  BEGIN(comm);
  if (!recvcounts || inter_) return;   /* intercommunicator: which group's size, see above */
  int total = 0;
  for (int i = 0; i < size_; i++) total += recvcounts[i];
  add(&p_, sendbuf, 0, total, datatype, 0);
  add(&p_, recvbuf, 0, recvcounts[rank_], datatype, 1);
  done(&p_, *request, "MPI_Ireduce_scatter", pc);
}

void hrace__nbc_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      MPI_Request *request, uintptr_t pc) {
  (void)op;
  BEGIN(comm);
  if (inter_) return;
  add(&p_, sendbuf, 0, recvcount * size_, datatype, 0);
  add(&p_, recvbuf, 0, recvcount, datatype, 1);
  done(&p_, *request, "MPI_Ireduce_scatter_block", pc);
}

/* Scans: each rank's send buffer is read, its receive buffer written, count elements each. */
static void scan_like(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Comm comm, MPI_Request *request, const char *fn, uintptr_t pc) {
  BEGIN(comm);
  add(&p_, sendbuf, 0, count, datatype, 0);
  add(&p_, recvbuf, 0, count, datatype, 1);
  done(&p_, *request, fn, pc);
}

void hrace__nbc_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  (void)op;
  scan_like(sendbuf, recvbuf, count, datatype, comm, request, "MPI_Iscan", pc);
}

void hrace__nbc_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  (void)op;
  scan_like(sendbuf, recvbuf, count, datatype, comm, request, "MPI_Iexscan", pc);
}

#define NEIGHBOURS(comm)                                                   \
  int in_, out_;                                                           \
  if (hrace__coll_degrees(comm, &in_, &out_)) {                           \
    done(&p_, MPI_REQUEST_NULL, NULL, 0);                                  \
    return;                                                                \
  }

void hrace__nbc_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  NEIGHBOURS(comm);
  if (out_) add(&p_, sendbuf, 0, sendcount, sendtype, 0);
  add(&p_, recvbuf, 0, recvcount * in_, recvtype, 1);
  done(&p_, *request, "MPI_Ineighbor_allgather", pc);
}

void hrace__nbc_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[], const int displs[],
                                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
                                     uintptr_t pc) {
  BEGIN(comm);
  NEIGHBOURS(comm);
  if (out_) add(&p_, sendbuf, 0, sendcount, sendtype, 0);
  blocks(&p_, recvbuf, recvcounts, displs, recvtype, in_, 1);
  done(&p_, *request, "MPI_Ineighbor_allgatherv", pc);
}

void hrace__nbc_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  NEIGHBOURS(comm);
  add(&p_, sendbuf, 0, sendcount * out_, sendtype, 0);
  add(&p_, recvbuf, 0, recvcount * in_, recvtype, 1);
  done(&p_, *request, "MPI_Ineighbor_alltoall", pc);
}

void hrace__nbc_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
                                    uintptr_t pc) {
  BEGIN(comm);
  NEIGHBOURS(comm);
  blocks(&p_, sendbuf, sendcounts, sdispls, sendtype, out_, 0);
  blocks(&p_, recvbuf, recvcounts, rdispls, recvtype, in_, 1);
  done(&p_, *request, "MPI_Ineighbor_alltoallv", pc);
}

void hrace__nbc_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                    void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                                    MPI_Request *request, uintptr_t pc) {
  BEGIN(comm);
  NEIGHBOURS(comm);
  for (int i = 0; i < out_ && sendcounts && sdispls && sendtypes; i++)
    add(&p_, sendbuf, sdispls[i], sendcounts[i], sendtypes[i], 0);
  for (int i = 0; i < in_ && recvcounts && rdispls && recvtypes; i++)
    add(&p_, recvbuf, rdispls[i], recvcounts[i], recvtypes[i], 1);
  done(&p_, *request, "MPI_Ineighbor_alltoallw", pc);
}
