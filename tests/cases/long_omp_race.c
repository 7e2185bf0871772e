/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 36 52
 */
/* Issue 21 item 4 with OpenMP threads: descriptor sweeps run while the other thread of the team
 * waits in a barrier (parked: clocks/access.h), and must keep what its accesses left in the
 * shadow. On rank 0, OpenMP thread 1 stores to win[0] and then works on its own elements of
 * another window while the master runs 40 000 lock / unlock epochs there (sweeps are refused
 * while thread 1 runs, and run once it waits in the barrier); rank 1 then puts to win[0] with
 * nothing ordering it after thread 1's store: a race. Twin: long_omp_norace.c. */
#include <mpi.h>
#include <omp.h>

/* Orders the ranks in real time without synchronisation hrace sees. */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

enum { EPOCHS = 40000 };

int main(int argc, char **argv) {
  int rank, provided;
  double *mem, *loop, one = 1.0;
  MPI_Win win, other;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &loop,
                   &other);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
        mem[0] = 2.0;
        for (int i = 0; i < 2000; i++) loop[32 + i % 16] += 1.0;
      }
#pragma omp master
      for (int i = 0; i < EPOCHS; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, other);
        loop[8 + i % 8] = i;
        loop[16 + i % 8] += 1.0;
        MPI_Win_unlock(0, other);
      }
#pragma omp barrier
    }
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
