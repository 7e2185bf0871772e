/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* a store in one section, loads after the sections construct (implicit barrier). */
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
    #pragma omp sections
    {
      #pragma omp section
      base[3] = 1;
      #pragma omp section
      base[4] = 2;
    }
    x = base[3] + base[4];
  }
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
