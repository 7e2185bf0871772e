/* hrace-test
 * ranks: 2
 * cflags: -O0
 * expect: race
 * pair: 40 41
 */
/* The slow path's cache of the part of a window that no other tracked range meets
 * (src/access/tsan.c, filter.h's hrace__filter_alone): rank 1 puts from the last element of
 * its own window's first row twice. Between the puts that element's buffer region stays in the
 * filter, idle, and a loop that reads row 0 and writes row 1 (per access, -O0) fills the cache
 * with the parts on both sides of it; the second put takes the idle region again without
 * changing the filter's version. Rank 1 then writes the element: before the unlock (the put in
 * flight, a race) in the race twin, after it in the no-race twin. The put's record in the
 * window's shadow finds the race too, so a cached part that took in the buffer (tried: the
 * cache made to cover the whole window) still passes here; tests/unit/test_access_filter.c
 * checks the parts' bounds. What this guards is the verdict on both sides of the cache.
 * Twin: win_alone_norace.c. */
#include <mpi.h>
#include <stdio.h>

enum { LD = 64 };

int main(int argc, char **argv) {
  int rank;
  double *area;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(2 * LD * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &area, &win);
  for (int c = 0; c < 2 * LD; c++) area[c] = c;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&area[LD - 1], 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
    for (int r = 0; r < 3; r++)
      for (int c = 0; c < LD - 1; c++) area[LD + c] = area[c] + r;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&area[LD - 1], 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, win);
    area[LD - 1] = 5;   /* the put from it is still in flight */
    MPI_Win_unlock(0, win);
    printf("rank 1: %g\n", area[LD + 1]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
