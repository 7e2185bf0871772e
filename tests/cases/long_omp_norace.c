/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* Twin of long_omp_race.c: thread 1's store to win[0] is ordered before rank 1's put (a barrier
 * of the team, then a send by the master that rank 1 receives before it puts), and thread 1
 * then runs on, over its own elements of the other window, while the master's 40 000 epochs
 * there make the sweeps run whenever thread 1 waits in a barrier. A descriptor of thread 1
 * given back while a cell or one of its caches holds it would come to name a later, unordered
 * access: a false race. */
#include <mpi.h>
#include <omp.h>

/* Orders the ranks in real time without synchronisation hrace sees. */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

enum { EPOCHS = 40000 };

int main(int argc, char **argv) {
  int rank, provided, token = 0;
  double *mem, *loop, one = 1.0;
  MPI_Win win, other;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &loop,
                   &other);
  if (rank == 0) {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) mem[0] = 2.0;
#pragma omp barrier
#pragma omp master
      MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      for (int round = 0; round < 4; round++) {
        if (omp_get_thread_num() == 1)
          for (int i = 0; i < 2000; i++) loop[32 + i % 16] += 1.0;
#pragma omp master
        for (int i = 0; i < EPOCHS / 4; i++) {
          MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, other);
          loop[8 + i % 8] = i;
          loop[16 + i % 8] += 1.0;
          MPI_Win_unlock(0, other);
        }
#pragma omp barrier
      }
    }
  } else {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  invisible_barrier();
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&other);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
