/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 31 35
 */
/* Survival: rank 1 finds a race (its load against rank 0's completed but unsynchronised put)
 * and then calls MPI_Abort. Its report was written when the race was found, so `hrace run`
 * still prints it and exits 66 although the job was aborted. The load comes before the put
 * (an invisible barrier between), and rank 1 aborts only after a message from rank 0, whose
 * send pings rank 1 first: the put's record is applied, and the race found, before that
 * (report_segv_race.c says why). */
#include <mpi.h>
#include <stdio.h>

static void stop(int rank) {
  fprintf(stderr, "rank %d: aborting on purpose\n", rank);
  MPI_Abort(MPI_COMM_WORLD, 3);
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
    stop(rank);
  }
  PMPI_Barrier(MPI_COMM_WORLD);                         /* rank 0 waits here until killed */
  MPI_Finalize();
  return 0;
}
