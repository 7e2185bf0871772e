/* hrace-test
 * ranks: 3
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* twin of hyb_coll_layers_race. Rank 2's second MPI-calling thread puts into rank 0's window
 * and unlocks; after the parallel region every rank calls MPI_Allreduce, then rank 0 loads.
 * The ordering lives in the clock entry of rank 2's second exporter slot: the second layer of
 * the clock, which a blocking all-to-all exchange sends only in its second round, when some
 * member's clock needs it (src/mpi/coll.c, "Layers"). */
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
  MPI_Barrier(MPI_COMM_WORLD);   /* every rank's initial thread is its first exporter */
  int v = 9, x = 0, one = 1, sum = 0;
  if (rank == 2) {
    #pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
      }
    }
  }
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) x = base[0];
  printf("%d %d\n", x, sum);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
