/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 24 26
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* two OpenMP threads store to the same window location with nothing between them. */
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
  #pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0)
      base[0] = 1;
    else
      base[0] = 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
