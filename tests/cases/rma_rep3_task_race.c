/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 24 24
 * count: 24 24 3
 */
/* A repeated call's key holds the issuing clock context and its version (docs/rma.md,
 * "Repeated operations"). On rank 0, two explicit OpenMP tasks, one after the other (a taskwait
 * between; a team of one thread, so that both run on it: the count depends on the threads that
 * run them), each get into one buffer from one line four times, all in flight at once: the
 * first two calls of each task go the whole way and race with the gets before them. The second
 * task's context may be made at the first one's address; its version is new all the same (a
 * stamp is never given twice), so its calls are not repeats of the first task's. The context's
 * address and its version each tell the tasks apart: with the address out of the key and
 * versions counted per context from 0, one occurrence (checked by mutation; either alone is
 * not caught). */
#include <mpi.h>
#include <omp.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

static void pull(MPI_Win win) { MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win); }

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
#pragma omp parallel num_threads(1)
#pragma omp single
    for (int k = 0; k < 2; k++) {
#pragma omp task
      for (int i = 0; i < 4; i++) pull(win);
#pragma omp taskwait
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
