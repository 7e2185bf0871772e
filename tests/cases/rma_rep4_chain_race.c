/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 20 20
 * count: 20 20 4
 */
/* A repeated call's key holds its caller chain; the hot path compares the shadow stack's
 * version (access/thread.h: the stamp of the innermost live instrumented activation, docs/rma.md
 * "Repeated operations"). Rank 0 gets into one buffer from one line, four times in a loop of
 * pull, called through via from from_a and then from from_b: the two chains share the get's
 * line and the innermost return address (in via) and differ in the next one. All eight gets
 * are in flight at once: each chain's first two calls go the whole way and race with the gets
 * in flight before them (four occurrences), its later ones are repeats. A version that named
 * only the innermost frame would make from_b's calls repeats of from_a's: one occurrence. */
#include <mpi.h>

int buf;   /* global: clang 14 leaves stores to a stack variable uninstrumented */

__attribute__((noinline)) static void pull(MPI_Win win) {
  for (int i = 0; i < 4; i++) MPI_Get(&buf, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
}
__attribute__((noinline)) static void via(MPI_Win win) { pull(win); }
__attribute__((noinline)) static void from_a(MPI_Win win) { via(win); }
__attribute__((noinline)) static void from_b(MPI_Win win) { via(win); }

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
    from_a(win);
    from_b(win);
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
