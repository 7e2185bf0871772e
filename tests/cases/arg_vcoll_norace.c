/* hrace-test
 * ranks: 2
 * expect: no-race
 */
/* The twin of arg_vcoll_race: the same v- and w-form collectives with valid arrays and
 * committed types draw no diagnostic, nor do arrays that are not significant (the send side
 * with MPI_IN_PLACE, a non-root's Gatherv receive arrays) or zero counts with a NULL buffer;
 * the put and the store are ordered by a barrier between two epochs. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 1, rc = 0, v[4] = { 1, 2, 3, 4 }, w[4] = { 0 };
  int ones[2] = { 1, 1 }, zeros[2] = { 0, 0 }, displs[2] = { 0, 1 }, bytes[2] = { 0, 4 };
  MPI_Datatype vec, types[2] = { MPI_INT, MPI_INT }, rtypes[2];
  MPI_Comm ring;
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Type_vector(1, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  rtypes[0] = MPI_INT, rtypes[1] = vec;
  int dims[1] = { 2 }, periods[1] = { 1 };
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  rc |= MPI_Alltoallv(v, ones, displs, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, w, ones, displs, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Allgatherv(&x, 1, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD);
  rc |= MPI_Alltoallw(v, ones, bytes, types, w, ones, bytes, rtypes, MPI_COMM_WORLD);
  rc |= MPI_Alltoallw(v, zeros, bytes, types, NULL, zeros, bytes, types, MPI_COMM_WORLD);
  rc |= MPI_Neighbor_alltoallv(v, ones, displs, MPI_INT, w, ones, displs, MPI_INT, ring);
  rc |= MPI_Reduce_scatter(v, w, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rc |= MPI_Gatherv(&x, 1, MPI_INT, w, rank == 0 ? ones : NULL, rank == 0 ? displs : NULL, MPI_INT, 0, MPI_COMM_WORLD);
  rc |= MPI_Gatherv(NULL, 0, MPI_INT, w, zeros, displs, MPI_INT, 1, MPI_COMM_WORLD);
  rc |= MPI_Iallgatherv(&x, 1, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD, &q);
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
  MPI_Type_free(&vec);
  MPI_Comm_free(&ring);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
