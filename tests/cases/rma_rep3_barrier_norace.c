/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* A repeated call's key holds the version of the issuing context's clock (docs/rma.md,
 * "Repeated operations"). Race-free twin of rma_rep3_barrier_race: rank 0's OpenMP thread 0
 * accumulates from one buffer four times, passes an OpenMP barrier, and accumulates four times
 * more (two accumulates never race: repeats from the second call on); thread 1 stores to the
 * buffer only after the epoch's unlock_all and a barrier. */
#include <mpi.h>
#include <omp.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

static void push(MPI_Win win) { MPI_Accumulate(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win); }

int main(int argc, char **argv) {
  int rank, *x, provided;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < 4; i++) push(win);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 0) {
        for (int i = 0; i < 4; i++) push(win);
        MPI_Win_unlock_all(win);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 1) buf = 2;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
