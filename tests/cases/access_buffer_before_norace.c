/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* As access_buffer_before_race.c, but an OpenMP barrier between the store and the put orders
 * them. */
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
      if (me == 1) {
        for (int i = 0; i < 16; i++) buf[i] = i;
        atomic_store_explicit(&step, 1, memory_order_relaxed);
      }
#pragma omp barrier
      if (me == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(buf, 16, MPI_DOUBLE, 1, 0, 16, MPI_DOUBLE, win);
        MPI_Win_unlock(1, win);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
