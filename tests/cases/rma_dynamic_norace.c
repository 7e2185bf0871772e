/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* Twin of rma_dynamic_race: rank 1 touches the attached memory only after the barrier that
 * follows rank 0's flush; after detaching a region its memory is private again, and reusing it
 * is no race (the second round puts only into the region still attached). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, v = 4, r = 0, s = 0;
  MPI_Aint addr[2];
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int *a = calloc(8, sizeof(int)), *b = calloc(8, sizeof(int));
  if (rank == 1) {
    MPI_Win_attach(win, a, 8 * sizeof(int));
    MPI_Win_attach(win, b, 8 * sizeof(int));
    MPI_Get_address(&a[3], &addr[0]);
    MPI_Get_address(&b[5], &addr[1]);
  }
  MPI_Bcast(addr, 2, MPI_AINT, 1, MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(&v, 1, MPI_INT, 1, addr[0], 1, MPI_INT, win);
    MPI_Get(&r, 1, MPI_INT, 1, addr[1], 1, MPI_INT, win);
    MPI_Win_flush(1, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    s += a[3];
    b[5] = 6;
    MPI_Win_detach(win, a);
    a[3] = 7;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Put(&v, 1, MPI_INT, 1, addr[1], 1, MPI_INT, win);
    MPI_Win_flush(1, win);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) MPI_Win_detach(win, b);
  printf("%d %d\n", s, r);
  MPI_Win_free(&win);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
