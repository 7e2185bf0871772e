/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 28 33
 */
/* Survival: rank 1 finds a race and then dies of SIGSEGV. Its report was written when the
 * race was found (and the crash handler adds a "crash" record), so `hrace run` still prints
 * it and exits 66. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>

static void crash(int rank) {
  fprintf(stderr, "rank %d: crashing on purpose\n", rank);
  raise(SIGSEGV);
}

int main(int argc, char **argv) {
  int rank, *base, one = 1;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  *base = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    PMPI_Barrier(MPI_COMM_WORLD);                       /* invisible to hrace */
  } else {
    PMPI_Barrier(MPI_COMM_WORLD);
    volatile int seen = *base;
    (void)seen;
    crash(rank);
  }
  PMPI_Barrier(MPI_COMM_WORLD);                         /* rank 0 waits here until killed */
  MPI_Finalize();
  return 0;
}
