/* hrace-test
 * ranks: 2
 * expect: no-race
 * openmp: yes
 * env: OMP_NUM_THREADS=2
 */
/* MPI_THREAD_MULTIPLE: two OpenMP threads per rank exchange messages concurrently, each on its
 * own tag, with blocking and non-blocking calls and wildcard sources. The transport must keep
 * every message with its own clock (no message races: the tags separate the streams) and
 * nothing may deadlock. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, provided, sum = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel num_threads(2) reduction(+ : sum)
  {
    int tag = omp_get_thread_num(), peer = 1 - rank, x = 0;
    MPI_Request r;
    for (int i = 0; i < 200; i++) {
      if (rank == 0) {
        x = i;
        MPI_Isend(&x, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&x, 1, MPI_INT, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ssend(&x, 1, MPI_INT, peer, tag, MPI_COMM_WORLD);
      }
      sum += x;
    }
  }
  printf("%d\n", sum);
  MPI_Finalize();
  return 0;
}
