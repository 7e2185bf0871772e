/* hrace-test
 * ranks: 2
 * expect: race
 * cflags: -mcx16
 * pair: 35 40
 * pair: 35 41
 * pair: 35 42
 * pair: 35 44
 * pair: 35 45
 * pair: 35 46
 * pair: 35 47
 */
/* C11 atomics of 1 to 16 bytes on rank 1's window while rank 0's put over them is in flight:
 * atomic against plain is a race. Built with clang 14 -mcx16 (__tsan_atomic*_compare_exchange_val, __tsan_atomic128_*). Twin: access_atomic_norace.c. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>

static struct {
  _Atomic char c; char pad0; _Atomic short s; _Atomic int i; _Atomic long l;   /* 0, 2, 4, 8 */
  __int128 q; _Atomic int j; char pad1[12]; __int128 q2;                       /* 16, 32, 48 */
  char tail[32];                                                               /* 64 */
} __attribute__((aligned(16))) area;   /* rank 1's window */

int main(int argc, char **argv) {
  int rank, provided;
  char src[64] = {0};
  MPI_Win win;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_create(&area, sizeof area, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(src, 64, MPI_CHAR, 1, 0, 64, MPI_CHAR, win);
    MPI_Win_unlock(1, win);
  } else {
    long sum = 0;
    int e = 0;
    atomic_store(&area.c, 1);
    sum += atomic_fetch_add(&area.s, 2);
    sum += atomic_compare_exchange_strong(&area.i, &e, 3);
    long el = 0;
    sum += atomic_compare_exchange_weak(&area.l, &el, 4);
    sum += atomic_exchange(&area.j, 5);
    sum += (long)__atomic_fetch_add(&area.q, 6, __ATOMIC_SEQ_CST);
    sum += (long)__atomic_load_n(&area.q2, __ATOMIC_ACQUIRE);
    printf("rank 1: %ld\n", sum);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
