/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* A repeated call's key holds the issuing clock context and its version (docs/rma.md,
 * "Repeated operations"). Race-free twin of rma_rep3_task_race: two explicit OpenMP tasks, one
 * after the other, each accumulate from one buffer four times (two accumulates never race:
 * repeats from the second call on), and the buffer is stored to after the epoch. */
#include <mpi.h>
#include <omp.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

static void push(MPI_Win win) { MPI_Accumulate(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win); }

int main(int argc, char **argv) {
  int rank, *x, provided;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
#pragma omp parallel num_threads(1)
#pragma omp single
    for (int k = 0; k < 2; k++) {
#pragma omp task
      for (int i = 0; i < 4; i++) push(win);
#pragma omp taskwait
    }
    MPI_Win_unlock_all(win);
    buf = 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
