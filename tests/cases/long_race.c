/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 32 43
 */
/* Issue 21 item 4: a race between an access of the first epoch and one of an epoch 40 000 later
 * must survive the descriptor sweeps in between (docs/access.md, "Reclaiming descriptors").
 * Rank 0 stores to win[0], then runs 40 000 lock / unlock epochs on itself in another window
 * (a lock of win would order rank 1's lock after them), each storing from two code addresses
 * (about 80 000 descriptors: the sweep runs at least once); rank 1 then puts to win[0] with
 * nothing ordering it after the store. The cell of
 * win[0] still names the store: its descriptor must not have been given back. Twin:
 * long_norace.c. */
#include <mpi.h>

/* Orders the ranks in real time without synchronisation hrace sees. */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

enum { EPOCHS = 40000 };

int main(int argc, char **argv) {
  int rank;
  double *mem, *loop, one = 1.0;
  MPI_Win win, other;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  MPI_Win_allocate(64 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &loop,
                   &other);
  if (rank == 0) {
    mem[0] = 2.0;
    for (int i = 0; i < EPOCHS; i++) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, other);
      loop[8 + i % 8] = i;
      loop[16 + i % 8] += 1.0;
      MPI_Win_unlock(0, other);
    }
  }
  invisible_barrier();
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Put(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&other);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
