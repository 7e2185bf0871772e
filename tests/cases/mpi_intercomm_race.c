/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 30 36
 */
/* MPI_Send -> MPI_Recv over an intercommunicator, but rank 1 loads before its side of it: the
 * load races with rank 0's put, which the unlock completed in real time (invisible barrier)
 * but nothing orders. */
#include <mpi.h>
#include <stdio.h>

/* Orders ranks in real time without hrace seeing it (PMPI is not intercepted). */
static void invisible_barrier(void) { PMPI_Barrier(MPI_COMM_WORLD); }

int main(int argc, char **argv) {
  int rank, *base, v = 42, x = -1, t = 0, u = 0;
  MPI_Win win;
  MPI_Request req;
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm self, inter;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  MPI_Intercomm_create(self, 0, MPI_COMM_WORLD, 1 - rank, 3, &inter);
  MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  base[0] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
    invisible_barrier();
    MPI_Send(&t, 1, MPI_INT, 0, 0, inter);
  } else if (rank == 1) {
    invisible_barrier();
    x = base[0];
    MPI_Recv(&t, 1, MPI_INT, 0, 0, inter, &st);
  } else {
    invisible_barrier();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d %d %d\n", x, t, u);
  MPI_Win_free(&win);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&self);
  MPI_Finalize();
  return 0;
}
