/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* A repeated call's key holds its caller chain (docs/rma.md, "Repeated operations"; the hot path
 * compares the shadow stack's innermost frames). Rank 0 gets into one buffer from one line, four
 * times through from_a and then four times through from_b, all in flight at once: each caller's
 * first two calls go the whole way and race with the gets in flight before them (four occurrences
 * counted), its later ones are repeats. With the chain left out of the key, from_b's calls would
 * be repeats of from_a's: one occurrence.
 * Race-free twin of rma_rep2_caller_race: the same calls are accumulates from the buffer (two of
 * them never race: repeats from the second call on), and the buffer is stored to after a local
 * completion. */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

__attribute__((noinline)) static void pull(MPI_Win win) {
  MPI_Accumulate(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win);
}
__attribute__((noinline)) static void from_a(MPI_Win win) { pull(win); }
__attribute__((noinline)) static void from_b(MPI_Win win) { pull(win); }

int main(int argc, char **argv) {
  int rank, *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  x[0] = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < 4; i++) from_a(win);
    for (int i = 0; i < 4; i++) from_b(win);
    MPI_Win_flush_local(1, win);
    buf = 2;
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
