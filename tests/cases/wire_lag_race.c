/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 32 45
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_OPTIONS=wire=always
 */
/* The twin of wire_lag_norace: rank 1 puts into rank 0's window only after it sent the
 * message, so the put is ordered neither before nor after the task's read of the word it
 * writes: a race, with the put's line and the read's. The old message still reaches a context
 * that knows no later base than the one its clock was encoded against, as in the twin; the
 * race must be found whatever the decoding. */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, msg = 5;
  double one = 1.0, *win_mem;
  atomic_int done = 0, spinning = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
  win_mem[0] = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Send(&msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
    for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
  } else {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        int got = 0;
        while (!atomic_load_explicit(&spinning, memory_order_relaxed)) {
        }
#pragma omp task shared(got)
        {
          MPI_Recv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          printf("task: %d %g\n", got, win_mem[0]);
        }
        for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
#pragma omp taskwait
        atomic_store_explicit(&done, 1, memory_order_relaxed);
      } else {
        atomic_store_explicit(&spinning, 1, memory_order_relaxed);
        while (!atomic_load_explicit(&done, memory_order_relaxed)) {
        }
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
