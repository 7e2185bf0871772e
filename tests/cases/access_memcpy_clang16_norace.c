/* hrace-test
 * ranks: 2
 * expect: no-race
 * cc: clang-16
 */
/* As access_memcpy_clang16_race.c, but the put covers only the 32 bytes after the four arrays while rank 1
 * copies; it copies into the put's bytes only after the barrier. Built with clang 16, which emits __tsan_memcpy / __tsan_memmove / __tsan_memset (skipped when clang-16 is not installed). */
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
    MPI_Put(src, 32, MPI_CHAR, 1, 64, 32, MPI_CHAR, win);
    MPI_Win_unlock(1, win);
  } else {
    memcpy(area.a, src, sizeof area.a);
    memset(area.b, 1, sizeof area.b);
    memmove(area.c, area.c + 1, sizeof area.c - 1);
    memcpy(local, area.d, sizeof local);
    printf("rank 1: %d\n", local[0]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) memset(area.tail, 2, sizeof area.tail);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
