/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* iterations update one location inside an ordered region, one after another. */
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
  #pragma omp parallel for ordered schedule(static, 1) num_threads(2)
  for (int i = 0; i < 4; i++) {
    #pragma omp ordered
    base[5] = base[5] + i;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
