/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 44 48
 * pair: 44 49
 * pair: 44 50
 * pair: 44 51
 * pair: 44 52
 * pair: 44 53
 * pair: 44 54
 * pair: 44 55
 * pair: 44 56
 * pair: 44 57
 * pair: 44 58
 * pair: 44 59
 * pair: 44 60
 * pair: 44 61
 */
/* Loads and stores of 1, 2, 4, 8 and 16 bytes, and an unaligned 4-byte one, by rank 1 into its
 * window while rank 0's put to the same 64 bytes is in flight: each races with the put.
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
    MPI_Put(src, 64, MPI_CHAR, 1, 0, 64, MPI_CHAR, win);
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
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
