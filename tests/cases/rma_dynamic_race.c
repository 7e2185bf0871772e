/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 31 35
 * pair: 32 36
 */
/* A dynamic window (MPI_Win_create_dynamic + MPI_Win_attach): displacements are absolute
 * addresses at the target (MPI_Get_address), exchanged by a broadcast. Rank 0's put into the
 * first attached region and get from the second race with rank 1's own accesses to them. */
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
  } else {
    s += a[3];
    b[5] = 6;
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_detach(win, a);
    MPI_Win_detach(win, b);
  }
  printf("%d %d\n", s, r);
  MPI_Win_free(&win);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
