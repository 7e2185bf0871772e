/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 32 40
 */
/* Item 5 of issue 6, the put first: thread 0 of rank 0 puts from a buffer, then thread 1
 * overwrites it before the unlock completes the put (a relaxed flag orders them in real time
 * only): a race with the operation in flight. Twin: access_buffer_after_norace.c. */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>

static _Atomic int step;   /* relaxed: orders the threads in real time, synchronises nothing */

int main(int argc, char **argv) {
  int rank, provided;
  static double mem[16];
  double buf[16];
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(mem, sizeof mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      int me = omp_get_thread_num();
      if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(buf, 16, MPI_DOUBLE, 1, 0, 16, MPI_DOUBLE, win);
        atomic_store_explicit(&step, 1, memory_order_relaxed);
        while (atomic_load_explicit(&step, memory_order_relaxed) != 2) {
        }
        MPI_Win_unlock(1, win);
      } else {
        while (atomic_load_explicit(&step, memory_order_relaxed) != 1) {
        }
        for (int i = 0; i < 16; i++) buf[i] = i;
        atomic_store_explicit(&step, 2, memory_order_relaxed);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
