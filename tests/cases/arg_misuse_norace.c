/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of arg_misuse_race: the same calls with valid arguments draw no diagnostic: a NULL
 * buffer with a count of 0, MPI_BOTTOM (NULL) with a datatype of absolute addresses, a
 * committed derived datatype, the last displacement of the target's window. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, v[4] = { 1, 2, 3, 4 }, in[4] = { 0 }, one = 1;
  MPI_Win win;
  MPI_Datatype vec, abs;
  MPI_Aint at;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Get_address(rank == 0 ? v : in, &at);
  MPI_Type_create_struct(1, &one, &at, (MPI_Datatype[]){ MPI_INT }, &abs);
  MPI_Type_commit(&abs);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(v, 1, vec, 1, 0, 1, vec, win);
    MPI_Put(v, 1, MPI_INT, 1, 7, 1, MPI_INT, win);
    MPI_Put(NULL, 0, MPI_INT, 1, 0, 0, MPI_INT, win);
    MPI_Win_unlock(1, win);
    MPI_Send(NULL, 0, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Send(MPI_BOTTOM, 1, abs, 1, 1, MPI_COMM_WORLD);
  } else {
    MPI_Recv(NULL, 0, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(MPI_BOTTOM, 1, abs, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d\n", in[0], rank == 1 ? base[7] : 0);
  MPI_Type_free(&vec);
  MPI_Type_free(&abs);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
