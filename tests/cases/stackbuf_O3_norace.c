/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O3
 */
/* The twin of stackbuf_O3_race: the same stack buffers used only after the operations
 * completed (MPI_Win_unlock, MPI_Wait); a load of a send buffer in flight is allowed. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = i;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    int a[4], s;
    MPI_Request r;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(a, 4, MPI_INT, 1, 0, 4, MPI_INT, win);
    MPI_Get(&s, 1, MPI_INT, 1, 4, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    a[1] = 3;
    x = s;
    MPI_Isend(a, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
    x += a[1];
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("%d %d\n", a[1], x);
  } else {
    int b[2];
    MPI_Request r;
    MPI_Irecv(b, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    x = b[1];
    printf("%d %d\n", b[0], x);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
