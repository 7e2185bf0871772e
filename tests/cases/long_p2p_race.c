/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 41 59
 */
/* Issue 21 item 4 in a program whose long loop makes no RMA call: descriptor sweeps run in the
 * loop's OpenMP barriers (the last thread to arrive sweeps while the other is parked), and must
 * keep what accesses left in the shadow. On rank 0, OpenMP thread 1 stores to win[0]; then
 * 40 000 steps of an `omp for` over a heap array and a point-to-point exchange with itself
 * (full mode: every step makes new descriptors); rank 1 then puts to win[0] with nothing
 * ordering it after thread 1's store: a race. Twin: long_p2p_norace.c. */
#include <mpi.h>
#include <omp.h>
#include <stdlib.h>

/* Orders the ranks in real time without synchronisation hrace sees. */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

/* 128 stores at as many code addresses: thread 1's descriptor caches forget its first store,
 * which then only the shadow's cell holds. */
#define C4(k) x[(k) % 8] += (k); x[((k) + 1) % 8] += (k) + 1; x[((k) + 2) % 8] += (k) + 2; \
  x[((k) + 3) % 8] += (k) + 3;
#define C16(k) C4(k) C4((k) + 4) C4((k) + 8) C4((k) + 12)
static void churn(volatile double *x) { C16(0) C16(16) C16(32) C16(48) C16(64) C16(80) C16(96) C16(112) }

enum { STEPS = 40000, N = 64 };

int main(int argc, char **argv) {
  int rank, provided;
  double *mem, one = 1.0, *a = calloc(N, sizeof(double)), *b = calloc(8, sizeof(double));
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) mem[0] = 2.0;
    }
    for (int s = 0; s < STEPS; s++) {
#pragma omp parallel for num_threads(2) schedule(static)
      for (int i = 0; i < N; i++) a[i] = 0.5 * a[i] + 1.0;
      if (s % 16 == 0) {
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 1) churn(b);
      }
      double out = a[0], in = 0;
      MPI_Sendrecv(&out, 1, MPI_DOUBLE, 0, 0, &in, 1, MPI_DOUBLE, 0, 0, MPI_COMM_SELF,
                   MPI_STATUS_IGNORE);
      a[1] += in;
    }
  }
  invisible_barrier();
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  free(a);
  free(b);
  return 0;
}
