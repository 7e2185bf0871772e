/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 30 33
 */
/* One call site, many displacements (docs/rma.md, "Repeated operations": a run of calls that
 * differ only in the displacement keeps each displacement it has seen). Rank 0 accumulates
 * into 64 elements of rank 1's window, three rounds, then into element 100 once, from the
 * same line, with the same buffer and clock: that call is no repeat. Rank 1 stores to element
 * 100 with nothing ordering the store and rank 0's epoch. */
#include <mpi.h>

long one = 1;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

int main(int argc, char **argv) {
  int rank;
  long *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(128 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  for (int i = 0; i < 128; i++) x[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Aint ds[3 * 64 + 1];
    for (int i = 0; i < 3 * 64; i++) ds[i] = i % 64;
    ds[3 * 64] = 100;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 3 * 64 + 1; i++)
      MPI_Accumulate(&one, 1, MPI_LONG, 1, ds[i], 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_unlock_all(win);
  } else {
    x[100] = 5;   /* unordered with rank 0's epoch */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
