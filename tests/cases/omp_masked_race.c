/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 26 27
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* masked (like master) has no barrier: another thread's load is not ordered after the store
 * inside it. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, *base;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int x = 0;
  #pragma omp parallel num_threads(2) reduction(+ : x)
  {
    #pragma omp masked
    base[2] = 7;
    if (omp_get_thread_num() == 1) x = base[2];
  }
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
