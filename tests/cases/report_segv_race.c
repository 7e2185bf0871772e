/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 34 38
 */
/* Survival: rank 1 finds a race and then dies of SIGSEGV. Its report was written when the
 * race was found (and the crash handler adds a "crash" record), so `hrace run` still prints
 * it and exits 66. Rank 1 loads before rank 0 puts (an invisible barrier between), and dies
 * only after a message from rank 0: rank 0's unlock does not wait for the put's record to be
 * applied, but its next publication (the send) pings rank 1 first, so rank 1 has applied the
 * record, and found the race against its load, before the message arrives. (With the load
 * after the put and the crash right after the load, the record could still be on its way
 * when rank 1 died: the race went unreported in one soak run.) */
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
    PMPI_Barrier(MPI_COMM_WORLD);                       /* invisible to hrace */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Send(&one, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);  /* rank 1 has applied the put first */
  } else {
    volatile int seen = *base;
    (void)seen;
    PMPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&one, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    crash(rank);
  }
  PMPI_Barrier(MPI_COMM_WORLD);                         /* rank 0 waits here until killed */
  MPI_Finalize();
  return 0;
}
