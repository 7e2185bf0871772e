/* The buffers of non-blocking collectives (nbcbuf.c): one function per call, with the call's
 * own parameters and then the caller's code address; the generated wrapper calls it after a
 * successful real call on a communicator hrace knows, and after an MPI-4 persistent
 * collective's init (the init's arguments without the info), whose state keeps the pieces
 * for every MPI_Start. */
#ifndef HRACE_MPI_NBCBUF_H
#define HRACE_MPI_NBCBUF_H
#include <mpi.h>
#include <stdint.h>

/* Rank in comm, and the number of blocks a v-form or an all-to-all has: the size of comm, or of
 * the remote group of an intercommunicator (*inter set: MPI-3.1 Sec. 5.2.3, data flows between
 * the groups). 0 when MPI will not say. */
int hrace__coll_shape(MPI_Comm comm, int *rank, int *inter);
/* In- and out-degree of a communicator with a topology (neighbourhood collectives); -1
 * without one. */
int hrace__coll_degrees(MPI_Comm comm, int *in, int *out);

void hrace__nbc_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, uintptr_t pc);
void hrace__nbc_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request, uintptr_t pc);
#endif
