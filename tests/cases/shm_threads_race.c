/* hrace-test
 * ranks: 4
 * expect: race
 * pair: 41 41
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 */
/* Many writers of the shared-memory rings at once (core/chan.c): four ranks on one host, four
 * threads each under MPI_THREAD_MULTIPLE, every thread locking, putting, flushing and
 * unlocking at every other rank in turn, so that each process's rings get requests from three
 * processes' threads and replies (lock grants, flush answers) from three progress threads while
 * its own threads wait and read them. Racing twin of shm_threads_norace: the second put
 * of each thread goes to the last slot of its window, which the same thread of every other
 * rank writes too under a shared lock. */
#include <mpi.h>
#include <omp.h>

#define T 4
#define ROUNDS 12

int main(int argc, char **argv) {
  int rank, size, provided, *x[T];
  MPI_Win win[T];
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int t = 0; t < T; t++) {   /* a window per thread: a process locks a target once */
    MPI_Win_allocate((size + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x[t],
                     &win[t]);
    for (int i = 0; i <= size; i++) x[t][i] = 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  #pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num(), v[2] = { rank, t };
    for (int i = 0; i < ROUNDS; i++) {
      int target = (rank + 1 + (i + t) % (size - 1)) % size;
      MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win[t]);
      MPI_Put(&v[0], 1, MPI_INT, target, rank, 1, MPI_INT, win[t]);
      MPI_Win_flush(target, win[t]);
      MPI_Put(&v[1], 1, MPI_INT, target, size, 1, MPI_INT, win[t]);
      MPI_Win_unlock(target, win[t]);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int t = 0; t < T; t++) MPI_Win_free(&win[t]);
  MPI_Finalize();
  return 0;
}
