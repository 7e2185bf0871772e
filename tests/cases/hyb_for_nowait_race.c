/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 25 37
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* rank 1: iteration 0 of a nowait loop makes the MPI_Barrier; the other thread's iterations
 * of the next loop load unordered. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, *base;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int v = 9, x = 0;
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {

    #pragma omp parallel num_threads(2) reduction(+ : x)
    {
      #pragma omp for schedule(static, 1) nowait
      for (int i = 0; i < 2; i++)
        if (i == 0) MPI_Barrier(MPI_COMM_WORLD);
      #pragma omp for schedule(static, 1)
      for (int i = 0; i < 2; i++)
        if (i == 1) x = base[0];
    }
  }
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
