/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of long_multiple_race.c: thread 1's store to win[0] is ordered before rank 1's put (a
 * barrier of the team, then a send that rank 1 receives before it puts), and the team then runs
 * on, its 40 000 `omp single` epochs on the other window (MPI_THREAD_MULTIPLE) making the sweeps
 * run whenever one thread waits at the end of a single. A descriptor of thread 1 given back while
 * a cell or one of its caches holds it would come to name a later, unordered access: a false
 * race. */
#include <mpi.h>
#include <omp.h>

/* Orders the ranks in real time without synchronisation hrace sees: rank 1 puts after the
 * sweeps. */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

/* 128 stores at as many code addresses: thread 1's descriptor caches forget its first store,
 * which then only the shadow's cell holds. */
#define C4(k) x[(k) % 8] += (k); x[((k) + 1) % 8] += (k) + 1; x[((k) + 2) % 8] += (k) + 2; \
  x[((k) + 3) % 8] += (k) + 3;
#define C16(k) C4(k) C4((k) + 4) C4((k) + 8) C4((k) + 12)
static void churn(volatile double *x) { C16(0) C16(16) C16(32) C16(48) C16(64) C16(80) C16(96) C16(112) }

enum { EPOCHS = 40000 };

int main(int argc, char **argv) {
  int rank, provided, token = 0;
  double *mem, *loop, one = 1.0;
  MPI_Win win, other;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &loop,
                   &other);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) mem[0] = 2.0;
#pragma omp barrier
#pragma omp master
      MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      for (int i = 0; i < EPOCHS; i++) {
        if (omp_get_thread_num() == 1 && i % 16 == 0) churn(loop + 40);
#pragma omp single
        {
          MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, other);
          loop[8 + i % 8] = i;
          loop[16 + i % 8] += 1.0;
          MPI_Win_unlock(0, other);
        }
      }
    }
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  invisible_barrier();
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&other);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
