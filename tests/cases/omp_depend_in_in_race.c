/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 25 27
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* two depend(in) tasks are not ordered with each other: one of them writing is a race. */
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
  #pragma omp single
  {
    #pragma omp task depend(in : base[7])
    base[7] = 1;
    #pragma omp task depend(in : base[7])
    base[7] = 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
