/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* As access_struct_race.c, but the put covers only the 32 bytes after the structs while rank 1
 * copies them; it copies into the put's bytes only after the barrier. Built with clang 14. */
#include <mpi.h>
#include <stdio.h>

struct big { long a[5]; };                   /* 40 bytes */
struct pair { int x, y; };                   /* 8 bytes */
struct blob { char c[32]; };
static struct { struct big b1, b2; struct pair p1, p2; char tail[32]; } area;   /* window */

int main(int argc, char **argv) {
  int rank;
  char src[128] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(&area, sizeof area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 32, MPI_CHAR, 1, (MPI_Aint)sizeof area - 32, 32, MPI_CHAR, win);
    MPI_Win_unlock(1, win);
  } else {
    struct big local = {{1, 2, 3, 4, 5}};
    struct pair lp = {1, 2};
    area.b1 = local;
    local = area.b2;
    area.p1 = lp;
    lp = area.p2;
    printf("rank 1: %ld %d\n", local.a[0], lp.x);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    struct blob t = {{0}};
    *(struct blob *)area.tail = t;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
