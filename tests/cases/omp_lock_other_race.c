/* hrace-test
 * ranks: 1
 * expect: race
 * pair: 28 32
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* each thread holds a different lock: locks only order sections of the same lock. */
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
  omp_lock_t l0, l1;
  omp_init_lock(&l0);
  omp_init_lock(&l1);
  #pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      omp_set_lock(&l0);
      base[3] = 1;
      omp_unset_lock(&l0);
    } else {
      omp_set_lock(&l1);
      base[3] = 2;
      omp_unset_lock(&l1);
    }
  }
  omp_destroy_lock(&l0);
  omp_destroy_lock(&l1);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
