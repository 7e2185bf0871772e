/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 37 43
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* twin of hyb_mixed_levels_norace (rank 0 asks for MPI_THREAD_MULTIPLE, rank 1 for
 * MPI_THREAD_SINGLE): rank 1 loads before its receive, so nothing orders the load after rank
 * 0's put. */
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
    x = base[0];
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(&sum, 1, MPI_INT, 1, MPI_COMM_WORLD);
  printf("%d %d\n", x, sum);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
