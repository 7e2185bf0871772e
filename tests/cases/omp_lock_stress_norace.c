/* hrace-test
 * ranks: 1
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 */
/* Four threads update window memory under an omp lock and a critical section, 20000 times each.
 * libomp reports a release after the lock is free again; without hrace's tickets (ompt.c) the
 * next holder could join the clock before the release was deposited: a false race here in
 * about one run in five. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int provided, *base;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
  #pragma omp parallel num_threads(4)
  for (int i = 0; i < 20000; i++) {
    omp_set_lock(&lock);
    base[0] = base[0] + 1;
    omp_unset_lock(&lock);
    #pragma omp critical
    base[1] = base[1] + 1;
  }
  omp_destroy_lock(&lock);
  printf("%d %d\n", base[0], base[1]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
