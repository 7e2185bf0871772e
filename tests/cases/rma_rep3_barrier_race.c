/* hrace-test
 * ranks: 2
 * expect: race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * pair: 21 21
 * count: 21 21 3
 */
/* A repeated call's key holds the version of the issuing context's clock (docs/rma.md,
 * "Repeated operations"). Rank 0's OpenMP thread 0 gets into one buffer from one line four
 * times, passes an OpenMP barrier (its clock joins the team's: a release and an acquire, no MPI
 * call, no completion), and gets four times more, all in flight at once: the first two calls of
 * each round go the whole way and race with the gets in flight before them (three occurrences).
 * With the barrier leaving the version as it was, the second round would be repeats of the
 * first: one occurrence (checked by mutation). The two rounds are one loop: one call site. */
#include <mpi.h>
#include <omp.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

static void pull(MPI_Win win) { MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win); }

int main(int argc, char **argv) {
  int rank, *x, provided;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
#pragma omp parallel num_threads(2)
    for (int r = 0; r < 2; r++) {
      if (omp_get_thread_num() == 0)
        for (int i = 0; i < 4; i++) pull(win);
      if (r == 0) {
#pragma omp barrier
      }
    }
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
