/* hrace-test
 * ranks: 3
 * expect: no-race
 */
/* rank 0 puts a strided vector (ints 0 and 2) while rank 2 puts int 1, in the hole:
 * disjoint bytes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 4; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int v[3] = {1, 2, 3}, w = 4;
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Win_lock_all(0, win);
  if (rank == 0) MPI_Put(v, 2, MPI_INT, 1, 0, 1, vec, win);
  if (rank == 2) MPI_Put(&w, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
  MPI_Win_unlock_all(win);
  MPI_Type_free(&vec);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
