/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* A repeated call's key holds the clock context that issues it (docs/rma.md, "Repeated
 * operations"). Rank 0's OpenMP thread 0 gets into one buffer from one line four times, then
 * (after a barrier) thread 1 does the same from the same line, all in flight at once: the first
 * two calls of each thread go the whole way and race with the gets in flight before them (six
 * occurrences counted; the cache is per thread, and the context, clock and shadow stack differ
 * too: with a cache shared by the threads, thread 1's calls would be repeats of thread 0's).
 * Race-free twin of rma_rep2_thread_race: the same calls are accumulates from the buffer (two of
 * them never race: repeats from the second call on), and the buffer is stored to after a local
 * completion. */
#include <mpi.h>
#include <omp.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

static void pull(MPI_Win win) { MPI_Accumulate(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win); }

int main(int argc, char **argv) {
  int rank, *x, provided;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0)
        for (int i = 0; i < 4; i++) pull(win);
#pragma omp barrier
      if (omp_get_thread_num() == 1)
        for (int i = 0; i < 4; i++) pull(win);
    }
    MPI_Win_flush_local(1, win);
    buf = 2;
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
