/* Argument errors that MPI may answer with a crash, a hang or an abort that names no line
 * (issue 22 item 8): a NULL buffer with a non-zero count, a derived datatype that was never
 * committed, a collective's root that is no rank. hrace diagnoses them with the caller's line before the real call, which then goes
 * through unchanged; hrace itself must not touch such a buffer or flatten such a type. RMA's
 * rank and displacement checks are in rma/ops.c (hrace__rma_begin). */
#ifndef HRACE_MPI_ARGCHECK_H
#define HRACE_MPI_ARGCHECK_H
#include <mpi.h>
#include <stdint.h>

/* May dt be used to communicate: predefined, or derived and committed? (MPI has no query for
 * "committed": a zero-count MPI_Pack on a private communicator whose errors return says it.) */
int hrace__type_committed(MPI_Datatype dt);

/* Check one buffer argument (what: "origin buffer", "buffer", ...) of call fn made at return
 * address pc; diagnose what is wrong. Returns 0 when the arguments are usable, -1 when hrace
 * must stay out of the call's way (nothing recorded, nothing flattened). A NULL address is
 * MPI_BOTTOM in Open MPI and MPICH: with a datatype of absolute addresses (true lower bound
 * not 0) it is legal and not diagnosed. */
int hrace__check_buffer(const char *fn, const char *what, const void *buf, long long count,
                        MPI_Datatype dt, uintptr_t pc);
/* The datatype alone (a target datatype). */
int hrace__check_type(const char *fn, const char *what, MPI_Datatype dt, uintptr_t pc);
/* The root of a rooted collective (fn, on comm): a rank of comm's group, or of the remote
 * group of an intercommunicator (where MPI_ROOT and MPI_PROC_NULL are legal too). Returns -1
 * after the diagnostic: hrace then leaves the call unmodelled (its own clock exchange would
 * use the root), and MPI answers it. */
int hrace__check_root(const char *fn, MPI_Comm comm, int root, uintptr_t pc);
/* A collective's send and receive buffers, where every rank's are significant (the generator
 * calls it for Bcast (one buffer: sbuf == rbuf), Allreduce, Allgather, Alltoall and their
 * non-blocking forms, and the send half of Reduce); an MPI_IN_PLACE send buffer is skipped,
 * and so is a receive side of count 0 and MPI_DATATYPE_NULL. Diagnoses only: the collective
 * stays modelled (the other ranks may have valid arguments and would wait in hrace's
 * exchange); -1 tells a non-blocking one not to track (flatten) its buffers. */
int hrace__check_coll(const char *fn, const void *sbuf, int scount, MPI_Datatype stype,
                      const void *rbuf, int rcount, MPI_Datatype rtype, uintptr_t pc);
/* The v- and w-form collectives (and their non-blocking and persistent forms, under the name
 * fn, with the blocking call's arguments): NULL count / displacement / type arrays where they
 * are read, negative counts, and their buffers as hrace__check_buffer checks them. -1 after a
 * diagnostic: a non-blocking or persistent form then tracks no buffers (the arrays are not
 * read); the call stays modelled. */
int hrace__check_Scatterv(const char *fn, const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, const void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, uintptr_t pc);
int hrace__check_Gatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, uintptr_t pc);
int hrace__check_Allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, uintptr_t pc);
int hrace__check_Alltoallv(const char *fn, const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, uintptr_t pc);
int hrace__check_Alltoallw(const char *fn, const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], const void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, uintptr_t pc);
int hrace__check_Reduce_scatter(const char *fn, const void *sendbuf, const void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, uintptr_t pc);
int hrace__check_Neighbor_allgatherv(const char *fn, const void *sendbuf, int sendcount, MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, uintptr_t pc);
int hrace__check_Neighbor_alltoallv(const char *fn, const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, const void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, uintptr_t pc);
int hrace__check_Neighbor_alltoallw(const char *fn, const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], const void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, uintptr_t pc);
#endif
