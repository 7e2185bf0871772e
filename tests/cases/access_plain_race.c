/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 45 49
 * pair: 45 50
 * pair: 45 51
 * pair: 45 52
 * pair: 45 53
 * pair: 45 54
 * pair: 45 55
 * pair: 45 56
 * pair: 45 57
 * pair: 45 58
 * pair: 45 59
 * pair: 45 60
 * pair: 45 61
 * pair: 45 62
 */
/* Loads and stores of 1, 2, 4, 8 and 16 bytes, and an unaligned 4-byte one, by rank 1 into its
 * window while rank 0's put over them is in flight: each races with the put. Stores and loads
 * use two copies of the struct, so every racing pair has bytes of its own (docs/design.md).
 * Built with clang 14 (__tsan_read/write1..16, __tsan_unaligned_*). Twin: access_plain_norace.c. */
#include <mpi.h>
#include <stdio.h>

/* Rank 1's window: members of every width the instrumentation has an entry point for. */
struct __attribute__((packed)) pk { char c; int i; };     /* i is unaligned */
struct area {
  char c; char pad0; short s; int i; long l; __int128 q;  /* offsets 0, 2, 4, 8, 16 */
  struct pk p; char pad1[10]; char edge; char tail[16];   /* 32 (i at 33), 47, 48 */
} __attribute__((aligned(16)));
_Static_assert(sizeof(struct area) == 64, "layout");
static struct area area[2];   /* stores go to [0], loads to [1]: each pair its own bytes */

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
    MPI_Put(src, 128, MPI_CHAR, 1, 0, 128, MPI_CHAR, win);
    MPI_Win_unlock(1, win);
  } else {
    long sum = 0;
    area[0].c = 1;
    area[0].s = 2;
    area[0].i = 3;
    area[0].l = 4;
    area[0].q = 5;
    area[0].p.i = 6;
    area[0].edge = 7;
    sum += area[1].c + 0;
    sum += area[1].s + 1;
    sum += area[1].i + 2;
    sum += area[1].l + 3;
    sum += (long)area[1].q + 4;
    sum += area[1].p.i + 5;
    sum += area[1].edge + 6;
    printf("rank 1: %ld\n", sum);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
