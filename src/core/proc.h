/* The process as hrace sees it: world rank and size, whether MPI is up, the clock layout agreed
 * at MPI_Init, the MPI thread level; lazy initialisation; the labels of accesses. */
#ifndef HRACE_CORE_PROC_H
#define HRACE_CORE_PROC_H
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

/* Labels of accesses (hrace_access_t.op). */
#define HRACE_OPS(X) \
  X(LOAD, "load") X(STORE, "store") X(ATOMIC_LOAD, "atomic load") X(ATOMIC_STORE, "atomic store") \
  X(ATOMIC_RMW, "atomic update") X(PUT, "MPI_Put") X(GET, "MPI_Get") X(ACC, "MPI_Accumulate") \
  X(GET_ACC, "MPI_Get_accumulate") X(FOP, "MPI_Fetch_and_op") X(CAS, "MPI_Compare_and_swap") \
  X(RPUT, "MPI_Rput") X(RGET, "MPI_Rget") X(RACC, "MPI_Raccumulate") X(RGET_ACC, "MPI_Rget_accumulate") \
  X(NBCALL, "non-blocking call")   /* a buffer of MPI_Isend, MPI_Irecv, ... (mpi/request.h) */
enum hrace_op {
#define X(e, s) HRACE_OP_##e,
  HRACE_OPS(X)
#undef X
  HRACE_OP_COUNT
};
const char *hrace__op_name(unsigned op);

typedef struct hrace_proc {
  int rank, size;            /* in MPI_COMM_WORLD; rank -1 before MPI_Init */
  bool mpi_ready;            /* between our MPI_Init and MPI_Finalize wrappers */
  MPI_Comm world_shadow;     /* clock exchanges of MPI_COMM_WORLD's collectives */
  uint32_t clock_len;        /* entries of a clock (nprocs * exporter slots) */
  uint32_t wire_len;         /* its first entries, which every point-to-point frame carries
                              * (nprocs * wire_slots); the rest travel only when non-zero */
  int thread_level;          /* the MPI thread level provided (MULTIPLE until MPI_Init): below
                              * MULTIPLE the application never makes two MPI calls at once */
} hrace_proc_t;

extern hrace_proc_t hrace__proc;

/* Does the application make at most one MPI call at a time? True when it asked for a thread
 * level below MPI_THREAD_MULTIPLE (MPI-3.1 Sec. 12.4.3: SERIALIZED calls never overlap,
 * FUNNELED and SINGLE come from one thread); state that only application threads touch inside
 * MPI calls then needs no lock. */
static inline bool hrace__mpi_serial(void) {
  int l = hrace__proc.thread_level;
  return l == MPI_THREAD_SINGLE || l == MPI_THREAD_FUNNELED || l == MPI_THREAD_SERIALIZED;
}
/* Length of a clock in a message (same at every process). */
static inline uint32_t hrace__clock_len(void) { return hrace__proc.clock_len; }

/* After MPI_Init: rank, size and the thread level the application asked for. */
void hrace__runtime_mpi_init(int rank, int size, int required);
/* Lazy runtime init (options, logging); safe to call from any entry point, any time. */
void hrace__runtime_init(void);
/* Mark the calling thread as hrace's own (the progress thread): no clocks, never reported. */
void hrace__thread_internal(void);
#endif
