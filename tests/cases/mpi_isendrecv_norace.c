/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: mpich
 */
/* MPI-4's MPI_Isendrecv (rank 0) against MPI_Isendrecv_replace (rank 1), completed by
 * MPI_Wait; each side checks the token it got (a frame hrace failed to strip would show).
 * Rank 0 exchanges after its unlock, so the exchange orders the put before rank 1's
 * load. Twin: mpi_isendrecv_race.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void exchange(int rank, int *tok, int peer) {
  MPI_Request rq;
  int mine = 100 + rank, got = -1;
  if (rank == 0) {
    MPI_Isendrecv(&mine, 1, MPI_INT, peer, 5, &got, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq);
  } else {
    got = mine;
    MPI_Isendrecv_replace(&got, 1, MPI_INT, peer, 5, peer, 5, MPI_COMM_WORLD, &rq);
  }
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  if (got != 100 + peer) {
    fprintf(stderr, "rank %d: got %d, wanted %d\n", rank, got, 100 + peer);
    exit(3);
  }
  *tok = got;
}

int main(int argc, char **argv) {
  int rank, *x, v = 5, s = 0, tok;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    exchange(rank, &tok, 1);
  } else {
    exchange(rank, &tok, 0);
    s = *x;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
