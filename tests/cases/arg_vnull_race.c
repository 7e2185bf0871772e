/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 40 42
 * diagnostic: 31
 * diagnostic: 32
 * diagnostic: 33
 * mpi: openmpi
 */
/* NULL count and displacement arrays of v- and w-form collectives (issue 22 item 8): MPICH
 * 4.0 dereferences them and dies of SIGSEGV with no line; hrace names the call and the line
 * first. Open MPI returns an error (errors return here), so this runs there only; every rank
 * makes the same mistake. hrace keeps working: the put's real race is still found. (The twin
 * is arg_vnull_norace.) */
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
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  rc |= MPI_Alltoallv(v, ones, NULL, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD); /* NULL_DISPLS */
  rc |= MPI_Neighbor_alltoallv(v, ones, displs, MPI_INT, w, NULL, displs, MPI_INT, ring); /* NULL_COUNTS */
  rc |= MPI_Ialltoallw(v, ones, bytes, types, w, ones, NULL, types, MPI_COMM_WORLD, &q); /* NULL_W */
  if (q != MPI_REQUEST_NULL) MPI_Wait(&q, MPI_STATUS_IGNORE);
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  if (rank == 0) {
    MPI_Put(&x, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* PUT */
  } else {
    base[1] = 5; /* STORE */
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%s %d\n", rc ? "errors returned" : "no error", w[0]);
  MPI_Comm_free(&ring);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
