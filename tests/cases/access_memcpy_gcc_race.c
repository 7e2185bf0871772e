/* hrace-test
 * ranks: 2
 * expect: race
 * cc: gcc
 * cflags: -O2
 * pair: 29 32
 * pair: 29 33
 * pair: 29 34
 * pair: 29 35
 */
/* memcpy into, memset of, memmove within and memcpy out of rank 1's window while rank 0's put
 * over it is in flight. Built with gcc 12 at -O2 (hrace-cc's -fno-builtin-mem* keeps the calls). Twin: access_memcpy_gcc_norace.c. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static struct { char a[16], b[16], c[16], d[16], tail[32]; } area;   /* rank 1's window */

int main(int argc, char **argv) {
  int rank;
  char src[96] = {0}, local[16];
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(&area, sizeof area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 96, MPI_CHAR, 1, 0, 96, MPI_CHAR, win);
    MPI_Win_unlock(1, win);
  } else {
    memcpy(area.a, src, sizeof area.a);
    memset(area.b, 1, sizeof area.b);
    memmove(area.c, area.c + 1, sizeof area.c - 1);
    memcpy(local, area.d, sizeof local);
    printf("rank 1: %d\n", local[0]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
