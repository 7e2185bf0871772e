/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* As access_plain_race.c, but rank 0's put covers only the last 16 bytes, and rank 1's
 * loads and stores while it is in flight touch only the 48 bytes before them, the last one
 * next to the put's first byte: granularity follows the access size, so no race. Rank 1
 * touches the put's bytes only after the barrier that follows the unlock. Built with clang 14. */
#include <mpi.h>
#include <stdio.h>

/* Rank 1's window: members of every width the instrumentation has an entry point for. */
struct __attribute__((packed)) pk { char c; int i; };     /* i is unaligned */
struct area {
  char c; char pad0; short s; int i; long l; __int128 q;  /* offsets 0, 2, 4, 8, 16 */
  struct pk p; char pad1[10]; char edge; char tail[16];   /* 32 (i at 33), 47, 48 */
} __attribute__((aligned(16)));
_Static_assert(sizeof(struct area) == 64, "layout");
static struct area area;

int main(int argc, char **argv) {
  int rank;
  char src[64] = {0};
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(&area, sizeof area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 16, MPI_CHAR, 1, 48, 16, MPI_CHAR, win);
    MPI_Win_unlock(1, win);
  } else {
    long sum = 0;
    area.c = 1;
    area.s = 2;
    area.i = 3;
    area.l = 4;
    area.q = 5;
    area.p.i = 6;
    area.edge = 7;
    sum += area.c + 0;
    sum += area.s + 1;
    sum += area.i + 2;
    sum += area.l + 3;
    sum += (long)area.q + 4;
    sum += area.p.i + 5;
    sum += area.edge + 6;
    printf("rank 1: %ld\n", sum);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) area.tail[0] = 8;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
