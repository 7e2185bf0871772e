/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Both ranks fill the shared-memory rings toward each other at once (core/chan.c): each puts
 * a strided type (one record of 20000 ranges, 320 KB, five rings' worth) to the other in
 * exclusive lock epochs with a flush between two puts, while its own progress thread drains
 * what the other sends and answers the other's lock requests on the reply ring. Twin of
 * shm_both_race: each rank reads an element the other's puts write after the barrier that
 * orders them. */
#include <mpi.h>

#define N 20000
int src[2 * N], got;   /* globals: clang 14 leaves stores to stack variables uninstrumented */

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Datatype vec;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 2 * N; i++) x[i] = 0, src[i] = i;
  MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int other = 1 - rank;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 6; it++) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, other, 0, win);
    MPI_Put(src, 1, vec, other, 0, 1, vec, win);
    MPI_Win_flush(other, win);
    MPI_Put(src + 1, 1, vec, other, 1, 1, vec, win);
    MPI_Win_unlock(other, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  got = x[2 * N - 1];
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_free(&vec);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
