/* hrace-test
 * ranks: 2
 * expect: no-race
 * mpi: openmpi
 */
/* The twin of arg_vnull_race: NULL arrays where MPI does not read them draw no diagnostic (the
 * send side of an MPI_IN_PLACE all-to-all, a non-root's receive arrays of MPI_Gatherv), and
 * the same calls with arrays draw none either; the put and the store are ordered by a barrier
 * between two epochs. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 1, rc = 0, v[4] = { 1, 2, 3, 4 }, w[4] = { 0 };
  int ones[2] = { 1, 1 }, displs[2] = { 0, 1 }, bytes[2] = { 0, 4 };
  MPI_Datatype types[2] = { MPI_INT, MPI_INT };
  MPI_Comm ring;
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int dims[1] = { 2 }, periods[1] = { 1 };
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  rc |= MPI_Alltoallv(v, ones, displs, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Neighbor_alltoallv(v, ones, displs, MPI_INT, w, ones, displs, MPI_INT, ring);
  rc |= MPI_Gatherv(&x, 1, MPI_INT, w, rank == 0 ? ones : NULL, rank == 0 ? displs : NULL, MPI_INT, 0, MPI_COMM_WORLD);
  rc |= MPI_Ialltoallw(v, ones, bytes, types, w, ones, bytes, types, MPI_COMM_WORLD, &q);
  if (q != MPI_REQUEST_NULL) MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) MPI_Put(&x, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 1) base[1] = 5;
  MPI_Win_unlock_all(win);
  printf("%s %d\n", rc ? "errors returned" : "no error", w[0]);
  MPI_Comm_free(&ring);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
