/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* updates under a nestable lock taken twice by each thread. */
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
  omp_nest_lock_t lock;
  omp_init_nest_lock(&lock);
  #pragma omp parallel num_threads(2)
  {
    omp_set_nest_lock(&lock);
    omp_set_nest_lock(&lock);
    base[6] = base[6] + 1;
    omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
  }
  omp_destroy_nest_lock(&lock);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
