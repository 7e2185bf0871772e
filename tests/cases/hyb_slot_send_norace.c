/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=4
 * env: HRACE_OPTIONS=exporters=2
 */
/* twin of hyb_slot_send_race. Four threads of rank 0 (MPI_THREAD_MULTIPLE, two exporter slots,
 * so three of them share the last) each store a word into the window and then send to rank 1,
 * concurrently, 20 rounds; rank 1's threads receive. Rank 1 then gets every word: each store
 * was made before its thread's send, which rank 1 received, so none races with the get. With a
 * sharer numbering its publication inside the first owner's lock-free run this reported a false
 * race (clocks/exporter.c, append_lockstep; found with the partitioned cases of nb_part_omp_*). */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#define T 4
#define ROUNDS 20

int main(int argc, char **argv) {
  int rank, provided, *base, got[T];
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(T * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int t = 0; t < T; t++) base[t] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  #pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num(), token = 0;
    for (int i = 0; i < ROUNDS; i++) {
      if (rank == 0) {
        base[t] = i + 1;
        MPI_Send(&token, 1, MPI_INT, 1, t, MPI_COMM_WORLD);
      } else {
        MPI_Recv(&token, 1, MPI_INT, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  }
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(got, T, MPI_INT, 0, 0, T, MPI_INT, win);
    MPI_Win_unlock(0, win);
    printf("%d %d %d %d\n", got[0], got[1], got[2], got[3]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
