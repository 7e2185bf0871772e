/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* twin of hyb_mixed_levels_race. MPI lets ranks ask for different thread levels: rank 0 asks
 * for MPI_THREAD_MULTIPLE, rank 1 for MPI_THREAD_SINGLE. hrace lays every clock out alike
 * anyway (the largest number of exporter slots any rank needs), or the collectives' clock
 * exchanges of the two ranks would not match (MPI_ERR_TRUNCATE, as it did before). Rank 0's
 * second thread puts into rank 1's window and unlocks; rank 0 then sends to rank 1, whose
 * load after the receive is ordered by the second slot's entry (in the message's tail). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static int world_rank(void) {   /* before MPI_Init: from the launcher */
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMI_RANK");
  return r ? atoi(r) : 0;
}

int main(int argc, char **argv) {
  int rank, provided, *base, one = 1, sum = 0;
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, world_rank() == 0 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                  &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int v = 9, x = 0, token = 1;
  if (rank == 0) {
    #pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(1, win);
      }
    }
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    x = base[0];
  }
  MPI_Bcast(&sum, 1, MPI_INT, 1, MPI_COMM_WORLD);
  printf("%d %d\n", x, sum);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
