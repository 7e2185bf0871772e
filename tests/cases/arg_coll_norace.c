/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of arg_coll_race: the same collectives with roots that are ranks and committed
 * datatypes draw no diagnostic (nor do a NULL buffer with a count of 0 and MPI_IN_PLACE), and the put and the store are ordered by a barrier between two epochs. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 1, y = 0, rc = 0, v[4] = { 1, 2, 3, 4 }, w[4] = { 0 };
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  rc |= MPI_Bcast(&x, 1, MPI_INT, 1, MPI_COMM_WORLD);
  rc |= MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  rc |= MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD);
  rc |= MPI_Alltoall(v, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
  if (rank == 0) MPI_Put(&x, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) base[1] = 5;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%s %d\n", rc ? "errors returned" : "no error", y);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
