/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* The delivery invariant (DESIGN, src/rma/protocol.h): a record is in its target's shadow
 * before its completion can be observed. Rank 0 issues a burst of 1000 puts (strided, so each
 * record carries many ranges) and unlocks; right after the barrier rank 1 reads everything,
 * and rank 2, told by a message from rank 0, gets it. Were a record applied late, the later
 * put would be checked against rank 1's loads and rank 2's get and reported. */
#include <mpi.h>
#include <stdio.h>

#define N 1000

int main(int argc, char **argv) {
  int rank, *x, v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, s = 0, token = 0;
  static int r[8 * N];
  MPI_Win win;
  MPI_Datatype strided;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(16 * N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 16 * N; i++) x[i] = 0;
  MPI_Type_vector(8, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    for (int i = 0; i < N; i++) MPI_Put(v, 8, MPI_INT, 1, 16 * i, 1, strided, win);
    MPI_Win_unlock(1, win);
    MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
  } else if (rank == 2) {
    MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (int i = 0; i < N; i++) MPI_Get(&r[8 * i], 8, MPI_INT, 1, 16 * i, 1, strided, win);
    MPI_Win_unlock(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1)
    for (int i = 0; i < 16 * N; i++) s += x[i];
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, r[8 * N - 1]);
  MPI_Type_free(&strided);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
