/* hrace-test
 * ranks: 2
 * expect: race
 * pair: 38 40
 * diagnostic: 31
 * diagnostic: 32
 * diagnostic: 33
 * diagnostic: 34
 */
/* Collectives' argument errors (issue 22 item 3): a root that is no rank of the communicator
 * (the call then goes to MPI unmodelled: hrace's own exchange would have used the root), a
 * datatype never committed. Every rank gets a diagnostic at the line before the call (errors
 * return here, so the program goes on). hrace
 * keeps working: the put's real race with rank 1's store is still found. (The twin,
 * arg_coll_norace, makes the same calls with valid roots.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, *base, x = 1, y = 0, rc = 0, v[4] = { 1, 2, 3, 4 }, w[4] = { 0 };
  MPI_Win win;
  MPI_Datatype vec;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* never committed */
  MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  for (int i = 0; i < 8; i++) base[i] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock_all(0, win);
  rc |= MPI_Bcast(&x, 1, MPI_INT, 5, MPI_COMM_WORLD); /* BCAST_ROOT */
  rc |= MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -3, MPI_COMM_WORLD); /* REDUCE_ROOT */
  rc |= MPI_Bcast(v, 1, vec, 0, MPI_COMM_WORLD); /* BCAST_TYPE */
  rc |= MPI_Alltoall(v, 1, MPI_INT, w, 1, vec, MPI_COMM_WORLD); /* ALLTOALL_TYPE */
  MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Put(&x, 1, MPI_INT, 1, 1, 1, MPI_INT, win); /* PUT */
  } else {
    base[1] = 5; /* STORE */
  }
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("%s %d\n", rc ? "errors returned" : "no error", y);
  MPI_Type_free(&vec);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
