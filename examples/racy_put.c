/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 37 44
 */
/* The bundled racy example (README, Quick start): one MPI_Put racing with a plain load.
 *
 * Rank 0 writes an int into rank 1's window under an exclusive lock. Rank 1 reads its own
 * window *before* the barrier. The barrier comes after rank 0's unlock, so it would order a
 * load placed after it; a load before it is ordered with nothing on rank 0's side. Whether
 * rank 1 prints 0 or 42 depends on timing: that is the race. hrace reports the MPI_Put
 * (line 37) and the load (line 44) as one race on rank 1's window, bytes [0,4).
 *
 *   build/bin/hrace-cc examples/racy_put.c -o racy_put
 *   build/bin/hrace run -- mpirun -np 2 ./racy_put
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "racy_put: run me with 2 ranks (mpirun -np 2)\n");
    MPI_Finalize();
    return 2;
  }

  int *base;                        /* this rank's window: one int */
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  if (rank == 0) {
    int value = 42;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);       /* races with line 44 */
    MPI_Win_unlock(1, win);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    /* Nothing orders this load with the put: the value depends on which came first (the
     * window's memory is not initialised; fine for a demonstration). */
    volatile int seen;
    seen = base[0];                                           /* races with line 37 */
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank 1 read %d before the barrier\n", seen);
  }
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
