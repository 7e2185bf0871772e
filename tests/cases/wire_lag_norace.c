/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 * env: HRACE_OPTIONS=wire=always
 */
/* A context that lags behind the collectives receives an old message. Rank 1 puts into rank
 * 0's window, unlocks, and sends rank 0 a message, all after the first barrier (its latest
 * base), then both ranks take six more barriers. On rank 0 (MPI_THREAD_FUNNELED) the main
 * thread creates an OpenMP task after the first barrier, takes the six barriers, and runs the
 * task at a taskwait (the other thread spins on a relaxed atomic from before the task exists to
 * after it ran: no scheduling point, so it cannot take the task, and nothing hrace counts as
 * ordering). The task receives the message and
 * reads the word the put wrote: ordered by the unlock and the message, no race. The message's
 * clock is encoded against base 1; the task's context knows no later base (it was made before
 * the six barriers), so only base 1 itself decodes it: a rank that kept its four newest bases
 * only (sessions 10-11) had dropped it and reported the put and the read as a race. Twin:
 * wire_lag_race.c. */
#include <mpi.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, msg = 5;
  double one = 1.0, *win_mem;
  atomic_int done = 0, spinning = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win;
  MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win_mem, &win);
  win_mem[0] = 0.0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
    MPI_Send(&msg, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
  } else {
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 0) {
        int got = 0;
        while (!atomic_load_explicit(&spinning, memory_order_relaxed)) {
        }
#pragma omp task shared(got)
        {
          MPI_Recv(&got, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          printf("task: %d %g\n", got, win_mem[0]);
        }
        for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
#pragma omp taskwait
        atomic_store_explicit(&done, 1, memory_order_relaxed);
      } else {
        atomic_store_explicit(&spinning, 1, memory_order_relaxed);
        while (!atomic_load_explicit(&done, memory_order_relaxed)) {
        }
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
