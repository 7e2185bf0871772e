/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 28
 * pair: 31 30
 * pair: 39 38
 * cflags: -O1
 */
/* Buffers on the stack (issue 22 item 2), built with -O1: a local array and a local scalar
 * given to MPI_Get and a local array given to MPI_Irecv are checked like any other buffer.
 * clang 14's ThreadSanitizer pass asked its "does the address escape?" question of the pointer
 * into the array, not of the array, and gave `a[1] = 3` no callback; hrace's pass adds it
 * (docs/access.md). The same case runs with gcc (case-gcc/). */
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
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    MPI_Get(a, 4, MPI_INT, 1, 0, 4, MPI_INT, win); /* GET */
    a[1] = 3; /* A_STORE */
    MPI_Get(&s, 1, MPI_INT, 1, 4, 1, MPI_INT, win); /* GET_S */
    x = s; /* S_LOAD */
    MPI_Win_unlock(1, win);
    MPI_Send(a, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
    printf("%d %d\n", a[1], x);
  } else {
    int b[2];
    MPI_Request r;
    MPI_Irecv(b, 2, MPI_INT, 0, 0, MPI_COMM_WORLD, &r); /* IRECV */
    x = b[1]; /* R_LOAD */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("%d %d\n", b[0], x);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
