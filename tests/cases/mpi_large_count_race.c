/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 32 45
 * mpi: mpich
 */
/* MPI-4's large-count forms mixed with the int ones: MPI_Send_c received by MPI_Recv, and
 * MPI_Send answered into MPI_Recv_c; each side checks the value it got (a message that lost
 * hrace's frame, or kept it, would show). Rank 0 sends before its unlock completes the put: rank 1's load after the receive is
 * not ordered after the put. Twin: mpi_large_count_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int rank, int got, int want) {
  if (got != want) {
    fprintf(stderr, "rank %d: got %d, wanted %d\n", rank, got, want);
    exit(3);
  }
}

int main(int argc, char **argv) {
  int rank, *x, v = 5, s = 0, tok = 42, back = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Send_c(&tok, (MPI_Count)1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    MPI_Win_unlock(1, win);
    MPI_Recv_c(&back, (MPI_Count)1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(rank, back, 43);
  } else {
    int got = 0;
    MPI_Status st;
    MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
    MPI_Count n = 0;
    MPI_Get_count_c(&st, MPI_INT, &n);
    check(rank, got, 42);
    check(rank, (int)n, 1);
    s = *x;
    got++;
    MPI_Send(&got, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
