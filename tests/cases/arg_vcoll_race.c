/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 50 52
 * diagnostic: 39
 * diagnostic: 40
 * diagnostic: 41
 * diagnostic: 42
 * diagnostic: 43
 */
/* v- and w-form collectives' argument errors (issue 22 item 8): a negative count in a send
 * count array, a datatype never committed in a w-form's type array, a negative count of a
 * neighbourhood collective and of MPI_Reduce_scatter, an uncommitted receive type of a
 * non-blocking v-form (whose buffers hrace then leaves untracked). Every rank makes the same
 * mistake and gets a diagnostic at the line; errors return here, so each call fails
 * everywhere and the program goes on (both MPIs return these errors; a negative count in
 * Allgatherv's receive counts crashes Open MPI, which is why hrace checks them first). hrace
 * keeps working: the put's real race with rank 1's store is still found. (The twin,
 * arg_vcoll_norace, makes the same calls with valid arguments; arg_vnull_race has NULL
 * arrays.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 1, rc = 0, v[4] = { 1, 2, 3, 4 }, w[4] = { 0 };
  int ones[2] = { 1, 1 }, displs[2] = { 0, 1 }, bad[2] = { 1, -1 }, bytes[2] = { 0, 4 };
  MPI_Datatype vec, types[2] = { MPI_INT, MPI_INT }, rtypes[2];
  MPI_Comm ring;
  MPI_Request q = MPI_REQUEST_NULL;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* never committed */
  rtypes[0] = MPI_INT, rtypes[1] = vec;
  int dims[1] = { 2 }, periods[1] = { 1 };
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  rc |= MPI_Alltoallv(v, bad, displs, MPI_INT, w, ones, displs, MPI_INT, MPI_COMM_WORLD); /* NEG_SEND */
  rc |= MPI_Alltoallw(v, ones, bytes, types, w, ones, bytes, rtypes, MPI_COMM_WORLD); /* W_TYPE */
  rc |= MPI_Neighbor_allgatherv(&x, 1, MPI_INT, w, bad, displs, MPI_INT, ring); /* NEG_NEIGHBOUR */
  rc |= MPI_Reduce_scatter(v, w, bad, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* RS_NEG */
  rc |= MPI_Ialltoallv(v, ones, displs, MPI_INT, w, ones, displs, vec, MPI_COMM_WORLD, &q); /* I_TYPE */
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
  MPI_Type_free(&vec);
  MPI_Comm_free(&ring);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
