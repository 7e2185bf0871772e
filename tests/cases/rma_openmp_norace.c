/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of rma_openmp_race: rank 1's thread loads after the barrier that follows the flush, and
 * rank 0's thread 1 stores into the Get's buffer after the flush (an OpenMP barrier orders it
 * after thread 0's flush). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int buf;

int main(int argc, char **argv) {
  int rank, *x, v = 5, s = 0, provided;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = x[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Get(&buf, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
        MPI_Win_flush(1, win);
      }
#pragma omp barrier
      if (omp_get_thread_num() == 1) buf = 9;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
#pragma omp parallel num_threads(2) reduction(+ : s)
    {
      if (omp_get_thread_num() == 1) s += x[0];
    }
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, buf);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
