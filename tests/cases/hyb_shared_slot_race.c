/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 36 42
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 * env: HRACE_OPTIONS=exporters=2
 */
/* twin of hyb_shared_slot_norace: hyb_tail_threads_race with three threads sharing a slot.
 * Thread 0 (a slot of its own) reads window 1, whose put thread 1 (sharing) ordered only before
 * its own receive: still a race. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define T 4
#define ROUNDS 30

int main(int argc, char **argv) {
  int rank, provided, *base[T], sum = 0;
  MPI_Win win[T];
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int t = 0; t < T; t++) {
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base[t], &win[t]);
    *base[t] = 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  #pragma omp parallel num_threads(T) reduction(+ : sum)
  {
    int t = omp_get_thread_num(), token = 0;
    for (int i = 0; i < ROUNDS; i++) {
      if (rank == 0) {
        int v = i + 1;
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win[t]);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win[t]);
        MPI_Win_unlock(1, win[t]);
        MPI_Send(&token, 1, MPI_INT, 1, t, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&token, 1, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += *base[(t + 1) % T];
        MPI_Send(&token, 1, MPI_INT, 0, t, MPI_COMM_WORLD);
      }
    }
  }
  if (rank == 1) printf("%d\n", sum);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int t = 0; t < T; t++) MPI_Win_free(&win[t]);
  MPI_Finalize();
  return 0;
}
