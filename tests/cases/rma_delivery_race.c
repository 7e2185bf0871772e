/* hrace-test
 * ranks: 3
 * expect: race
 * pair: 28 38
 * pair: 28 33
 */
/* Twin of rma_delivery_norace: the barrier and the message now leave before the unlock, so the
 * burst of puts is still in flight when rank 1 reads and rank 2 gets. */
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
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    for (int i = 0; i < N; i++) MPI_Put(v, 8, MPI_INT, 1, 16 * i, 1, strided, win);
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
  if (rank == 0) MPI_Win_unlock(1, win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", s, r[8 * N - 1]);
  MPI_Type_free(&strided);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
