/* hrace-test
 * ranks: 3
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* twin of hyb_tail_chain_race. Rank 2's second MPI-calling thread puts into rank 0's window,
 * unlocks and sends to rank 1, which forwards to rank 0 before rank 0 loads. The ordering
 * lives in the clock entry of rank 2's second exporter, which is not inside a frame (one entry
 * per rank is: option wire_slots) but in the clock's tail, a second message (src/mpi/p2p.c):
 * sparse from rank 2 (one non-zero entry of three), then passed on by rank 1, which must send
 * a tail too. Rank 1 receives with a wildcard, Irecv + Wait; rank 0 with MPI_Recv. */
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
  int v = 9, x = 0, token = 1;
  if (rank == 2) {
    #pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
      }
    }
  } else if (rank == 1) {
    MPI_Request r;
    MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  } else {
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    x = base[0];
  }
  printf("%d\n", x);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
