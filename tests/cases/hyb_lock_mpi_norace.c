/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* rank 1: thread 0 makes the MPI_Barrier holding an omp lock and sets a flag; thread 1
 * takes the lock, sees the flag, loads. */
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

    omp_lock_t lock;
    omp_init_lock(&lock);
    int done = 0;
    #pragma omp parallel num_threads(2) reduction(+ : x)
    {
      if (omp_get_thread_num() == 0) {
        omp_set_lock(&lock);
        MPI_Barrier(MPI_COMM_WORLD);
        done = 1;
        omp_unset_lock(&lock);
      } else {
        for (int seen = 0; !seen;) {
          omp_set_lock(&lock);
          if (done) { x = base[0]; seen = 1; }
          omp_unset_lock(&lock);
        }
      }
    }
    omp_destroy_lock(&lock);
  }
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
