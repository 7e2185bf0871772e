/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 29 24
 */
/* A non-blocking receive into the process's own window while another process puts into the
 * same bytes: MPI writes them twice, in no order (MPI-3.1 Sec. 3.7.2 and 11.7). Rank 1 posts
 * an MPI_Irecv into base[0..1]; rank 0 puts into rank 1's base[1] and only then sends the
 * message, so the put lands while the receive is pending. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, one = 1, msg[2] = { 5, 6 }, *base;
  MPI_Win win;
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 1) {
    MPI_Irecv(base, 2, MPI_INT, 0, 1, MPI_COMM_WORLD, &q); /* IRECV */
    PMPI_Barrier(MPI_COMM_WORLD);   /* invisible to hrace: the receive is posted first */
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  } else {
    PMPI_Barrier(MPI_COMM_WORLD);
    MPI_Put(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* PUT */
    MPI_Win_flush(1, win);
    MPI_Send(msg, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%d\n", base[1]);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
